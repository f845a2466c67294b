import { z } from "zod";
import {
  amountField,
  countField,
  pricedUsageField,
  targetRefField,
  textField,
  wordField,
} from "./stored-fields.js";

/** The `custom` entry recording a failed model attempt and what failover did. */
export const FAILOVER_CUSTOM_TYPE = "arbor.failover";

/** The `custom` entry recording what the context guard did before a request. */
export const CONTEXT_GUARD_CUSTOM_TYPE = "arbor.context-guard";

/**
 * The data of a {@link FAILOVER_CUSTOM_TYPE} entry: the turn and its failure count, the
 * target that failed (`provider`, `model`), the classified error (`kind`, such as
 * `rate_limit`, and its message), what failover did (`action`: `retry`, `next_target`,
 * `drop_target`, `compact` or `give_up`) after how long, the next target (`null` when it
 * gave up) and the attempt's priced usage.
 */
export const failoverRecordSchema = targetRefField.extend({
  turn: countField,
  attempt: countField,
  kind: wordField,
  message: textField,
  action: wordField,
  delayMs: amountField,
  next: targetRefField.nullable(),
  usage: pricedUsageField,
});
/** The data of a {@link FAILOVER_CUSTOM_TYPE} entry. */
export type FailoverRecord = z.infer<typeof failoverRecordSchema>;

/**
 * The data of a {@link CONTEXT_GUARD_CUSTOM_TYPE} entry: the turn, what the guard did
 * (`switch_target` or `force_final`), the prompt's estimated tokens against the limit,
 * and the target before and after.
 */
export const contextGuardRecordSchema = z.looseObject({
  turn: countField,
  action: wordField,
  estimate: amountField,
  limit: amountField,
  from: targetRefField,
  to: targetRefField,
});
/** The data of a {@link CONTEXT_GUARD_CUSTOM_TYPE} entry. */
export type ContextGuardRecord = z.infer<typeof contextGuardRecordSchema>;
