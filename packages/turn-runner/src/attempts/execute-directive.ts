import type { AnswerProblem } from "../answer-review.js";
import { failureReasonOf, feedbackText, persistRejection } from "../answer-review.js";
import { compactionEvent } from "../compaction/agent-compaction.js";
import {
  type FailedAttemptOutcome,
  recordAttempt,
  recordFailedAttempt,
} from "../failed-attempt.js";
import type { FailoverDecision } from "../failover-policy.js";
import { accountCall } from "../run/run-accounting.js";
import type { RunContext } from "../run/run-context.js";
import type { ModelTarget } from "../target-pool.js";
import type { TurnFailure } from "../turn-answer.js";
import type { AttemptState, PoolMove, RetryDirective } from "./retry-directive.js";

/** The attempt a directive is about. */
export interface DirectedAttempt {
  turnIndex: number;
  target: ModelTarget;
  /** The failed attempt, for `fail_over` and the overflow directives. */
  failed?: FailedAttemptOutcome;
  /** The stored answer and why it was not accepted, for `reject_answer`. */
  rejected?: { entryId: string; problems: AnswerProblem[] };
}

/** What executing a directive led to: try again, or end the turn with a failure. */
export type DirectiveOutcome = { next: "retry" } | { next: "fail"; failure: TurnFailure };

const RETRY: DirectiveOutcome = { next: "retry" };
const fail = (failure: Omit<TurnFailure, "ok">): DirectiveOutcome => ({
  next: "fail",
  failure: { ok: false, ...failure },
});

/**
 * Carries out a failing, rejecting or overflow directive of {@link decideRetry}: moves the
 * pool, stores what the attempt leaves (failover records, feedback, a compaction), emits
 * events and waits, and updates the turn's attempt state. `accept`, `end` and
 * `retry_after_interrupt` are the caller's, since they store the answer itself.
 */
export async function executeDirective(
  run: RunContext,
  directive: Extract<
    RetryDirective,
    { type: "fail_over" | "reject_answer" | "compact_and_retry" | "give_up_overflow" }
  >,
  attempt: DirectedAttempt,
  attempts: AttemptState,
): Promise<DirectiveOutcome> {
  const { state } = run;
  const { turnIndex, target } = attempt;
  switch (directive.type) {
    case "reject_answer": {
      attempts.rejections = directive.attempt;
      const { entryId, problems } = attempt.rejected as NonNullable<DirectedAttempt["rejected"]>;
      const kinds = problems.map((problem) => problem.kind);
      const reportTool = run.reportContract?.toolName;
      if (directive.exhausted) {
        state.channel.push({
          type: "answer_rejected",
          turnIndex,
          attempt: directive.attempt,
          problems: kinds,
          entryId,
        });
        return fail({
          reason: failureReasonOf(problems[0] as AnswerProblem),
          message: feedbackText(problems, reportTool),
        });
      }
      const feedbackEntryId = await persistRejection(run.session, entryId, problems, reportTool);
      state.channel.push({
        type: "answer_rejected",
        turnIndex,
        attempt: directive.attempt,
        problems: kinds,
        entryId,
        feedbackEntryId,
      });
      return RETRY;
    }
    case "fail_over": {
      attempts.failures = directive.attempt;
      const outcome = attempt.failed as FailedAttemptOutcome;
      movePool(run, target, directive.move);
      const decision: FailoverDecision = { action: directive.action, delayMs: directive.delayMs };
      await recordFailedAttempt(run, {
        turnIndex,
        attempt: directive.attempt,
        target,
        outcome,
        decision,
      });
      if (directive.giveUp) return fail(directive.giveUp);
      if (directive.delayMs > 0)
        await run.options.seams.sleep(directive.delayMs, state.control.waitSignal);
      if (state.control.ended) return fail({ reason: state.control.ended });
      return RETRY;
    }
    case "compact_and_retry":
    case "give_up_overflow": {
      // Compact once and retry the same turn; its user message and tool results stay. The
      // attempt is recorded once the compaction has decided what it led to.
      attempts.failures = directive.attempt;
      let compacted = false;
      if (directive.type === "compact_and_retry") {
        attempts.overflowCompacted = true;
        const compaction = await run.compaction.compact(target.model, "overflow", {
          signal: state.signal,
        });
        if (compaction.status === "compacted") {
          compacted = true;
          await accountCall(run, target, compaction.usage, {
            kind: "compaction",
            turnIndex,
            outcome: "done",
          });
        }
        state.channel.push(compactionEvent(compaction, turnIndex));
        if (state.control.ended) return fail({ reason: state.control.ended });
      }
      await recordAttempt(run, {
        turnIndex,
        attempt: directive.attempt,
        target,
        outcome: attempt.failed as FailedAttemptOutcome,
        decision: { action: compacted ? "compact" : "give_up", delayMs: 0 },
      });
      if (compacted) return RETRY;
      return fail({ reason: "context_overflow", message: directive.message });
    }
  }
}

/** Applies what failing over does to the pool. */
function movePool(run: RunContext, target: ModelTarget, move: PoolMove): void {
  const { pool } = run;
  switch (move) {
    case "rate_limited":
      pool.markRateLimited(target);
      pool.advance();
      return;
    case "drop":
      pool.drop(target);
      return;
    case "advance":
      pool.advance();
      return;
    case "bigger_window": {
      const bigger = run.contextGuard.biggerWindow(target, pool.targets);
      if (bigger) pool.select(bigger.model);
      return;
    }
  }
}
