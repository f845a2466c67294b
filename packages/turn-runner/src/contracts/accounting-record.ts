import { MODEL_ERROR_KINDS, usageSchema } from "@arbor/providers";
import { z } from "zod";
import { runAncestrySchema } from "./run-ancestry.js";
import { targetRefSchema } from "./run-vocabulary.js";

const dollars = z.number().nonnegative();

/**
 * Tokens of one model call priced at the serving model's catalogue prices, in pi's shape
 * (the shape stored on answers as `usage`): the counts, their total and their cost in US
 * dollars.
 */
export const pricedUsageSchema = usageSchema.extend({
  totalTokens: z.number().int().nonnegative(),
  cost: z.object({
    input: dollars,
    output: dollars,
    cacheRead: dollars,
    cacheWrite: dollars,
    total: dollars,
  }),
});

/** Tokens of one model call with their cost (see {@link pricedUsageSchema}). */
export type PricedUsage = z.infer<typeof pricedUsageSchema>;

/**
 * One accounting record: a model call of a run (an answer attempt, or the summary call of
 * a compaction), handed to the `accountingSink` option as soon as the call ended, whether
 * it succeeded, failed, was aborted or interrupted by a stream rule. The run's `usage` and
 * `cost` are the sums of its records.
 */
export const accountingRecordSchema = z.object({
  /** The run the call belongs to, and where that run sits among the request's runs. */
  ancestry: runAncestrySchema,
  /** `model_call`: an answer attempt; `compaction`: the summary call of a compaction. */
  kind: z.enum(["model_call", "compaction"]),
  /** The turn the call was made in. */
  turnIndex: z.number().int().nonnegative(),
  /** The attempt within the turn (1, 2, …; answer attempts only). */
  attempt: z.number().int().positive().optional(),
  /** The model that served or failed the call. */
  target: targetRefSchema,
  /** How the call ended. */
  outcome: z.enum(["done", "error", "aborted", "interrupt"]),
  /** The model's stop reason, for a call that finished. */
  stopReason: z.string().optional(),
  /** The error kind, for a call that failed. */
  errorKind: z.enum(MODEL_ERROR_KINDS).optional(),
  /** Tokens and their cost. */
  usage: pricedUsageSchema,
  /** False when the model has no price in the catalogue: its cost reads 0. */
  priced: z.boolean(),
  /** When the call ended, in epoch milliseconds (the agent's clock). */
  timestamp: z.number(),
});

/** One accounting record (see {@link accountingRecordSchema}). */
export type AccountingRecord = z.infer<typeof accountingRecordSchema>;

/**
 * Receives each accounting record as it happens. It is awaited, so records arrive in order
 * and a slow sink slows the run rather than piling records up; a sink that throws does not
 * fail the run (an `accounting_sink_failed` event reports it).
 */
export type AccountingSink = (record: AccountingRecord) => void | Promise<void>;
