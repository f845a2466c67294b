import { FAILOVER_CUSTOM_TYPE, type FailoverRecord } from "@arbor/session-store";
import type { FailoverDecision } from "./failover-policy.js";
import type { AttemptOutcome } from "./model-attempt.js";
import type { RunContext } from "./run/run-context.js";
import { type ModelTarget, targetRef } from "./target-pool.js";
import { usageRecord } from "./usage-record.js";

/** A model attempt that ended in an error. */
export type FailedAttemptOutcome = Extract<AttemptOutcome, { kind: "error" }>;

/** One failed attempt of a turn and what failover decided about it. */
export interface FailedAttempt {
  turnIndex: number;
  /** The turn's failure count, this one included. */
  attempt: number;
  target: ModelTarget;
  outcome: FailedAttemptOutcome;
  decision: FailoverDecision;
}

/**
 * Stores a failed attempt as an `arbor.failover` entry: which target failed and how, what
 * failover did, the next target (none when it gave up), the attempt's priced usage.
 */
export async function recordAttempt(run: RunContext, failed: FailedAttempt): Promise<void> {
  const { turnIndex, attempt, target, outcome, decision } = failed;
  const { error } = outcome;
  const next = decision.action === "give_up" ? undefined : run.pool.current();
  await run.session.appendCustomEntry(FAILOVER_CUSTOM_TYPE, {
    turn: turnIndex,
    attempt,
    ...targetRef(target),
    kind: error.kind,
    message: error.message,
    action: decision.action,
    delayMs: decision.delayMs,
    next: next ? targetRef(next) : null,
    usage: usageRecord(outcome.usage, target.model.info.pricing),
  } satisfies FailoverRecord);
}

/**
 * Records a failed attempt that failover moved on from ({@link recordAttempt}) and emits a
 * `retry` event.
 */
export async function recordFailedAttempt(run: RunContext, failed: FailedAttempt): Promise<void> {
  const { state } = run;
  const { turnIndex, attempt, target, outcome, decision } = failed;
  const { error } = outcome;
  await recordAttempt(run, failed);
  state.channel.push({
    type: "retry",
    turnIndex,
    attempt,
    kind: error.kind,
    message: error.message,
    target: targetRef(target),
    action: decision.action,
    delayMs: decision.delayMs,
  });
}
