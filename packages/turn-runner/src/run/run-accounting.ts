import { costOf, type ModelPricing, type Usage } from "@arbor/providers";
import type { AccountingRecord } from "../contracts/index.js";
import { type ModelTarget, targetRef } from "../target-pool.js";
import { usageRecord } from "../usage-record.js";
import type { RunContext } from "./run-context.js";

/** What a model call was and how it ended, for its accounting record. */
export type AccountedCall = Pick<
  AccountingRecord,
  "kind" | "turnIndex" | "attempt" | "outcome" | "stopReason" | "errorKind"
>;

/** Whether a model has no price: every price is 0, as for a model the catalogue does not know. */
export function isUnpriced(pricing: ModelPricing): boolean {
  return (
    pricing.input === 0 &&
    pricing.output === 0 &&
    pricing.cacheRead === 0 &&
    pricing.cacheWrite === 0
  );
}

/**
 * Accounts one model call of a run — the one path for it: its tokens, and their cost at the
 * target's catalogue prices, are added to the run's totals; a model without a price is
 * reported once per run (`model_unpriced`); the call's record, with the run's ancestry, goes
 * to the `accountingSink` option (awaited; a failing sink is reported, never fatal).
 */
export async function accountCall(
  run: RunContext,
  target: ModelTarget,
  usage: Usage,
  call: AccountedCall,
): Promise<void> {
  const { state } = run;
  const { pricing } = target.model.info;
  state.usage.input += usage.input;
  state.usage.output += usage.output;
  state.usage.cacheRead += usage.cacheRead;
  state.usage.cacheWrite += usage.cacheWrite;
  state.cost += costOf(usage, pricing);
  const priced = !isUnpriced(pricing);
  const ref = targetRef(target);
  const key = `${ref.provider}/${ref.model}`;
  if (!priced && !state.unpricedReported.has(key)) {
    state.unpricedReported.add(key);
    state.channel.push({
      type: "model_unpriced",
      turnIndex: call.turnIndex,
      target: ref,
      message: `${key} has no price in the model catalogue: its cost is counted as $0.`,
    });
  }
  const sink = run.options.host.accountingSink;
  if (!sink) return;
  const record: AccountingRecord = {
    ancestry: state.channel.ancestry,
    ...call,
    target: ref,
    usage: usageRecord(usage, pricing),
    priced,
    timestamp: run.options.seams.now(),
  };
  try {
    await sink(record);
  } catch (error) {
    state.channel.push({
      type: "accounting_sink_failed",
      turnIndex: call.turnIndex,
      message: error instanceof Error ? error.message : String(error),
    });
  }
}
