import {
  CONTEXT_GUARD_CUSTOM_TYPE,
  type ContextGuardRecord,
  FINAL_TURN_CUSTOM_TYPE,
  type FinalTurnDetails,
} from "@arbor/session-store";
import { finalTurnToolNames } from "./agent-tool.js";
import { type AnswerReview, reviewAnswer } from "./answer-review.js";
import { attemptOutcome } from "./attempt-span.js";
import { executeDirective } from "./attempts/execute-directive.js";
import {
  type AttemptState,
  type AttemptVerdict,
  decideRetry,
  type PoolView,
  type RetryPolicy,
} from "./attempts/retry-directive.js";
import { compactionEvent } from "./compaction/agent-compaction.js";
import { FINAL_META_TOOL_NAME } from "./final-meta.js";
import { type FinalTurnReason, finalTurnInstruction } from "./final-turn.js";
import { type AttemptOutcome, assistantMessage, streamAttempt } from "./model-attempt.js";
import { modelRequest, promptEstimate } from "./model-request.js";
import { accountCall } from "./run/run-accounting.js";
import { type RunContext, ruleReminderContext } from "./run/run-context.js";
import type { RunState } from "./run-state.js";
import { type ModelTarget, targetRef } from "./target-pool.js";
import { persistInterrupt } from "./ttsr-interrupt.js";
import type { TurnAnswer } from "./turn-answer.js";

/**
 * Gets one answer for a turn: each attempt is prepared (threshold compaction, the final
 * turn on stop, the context guard), streamed and, when it finished, stored and reviewed;
 * then {@link decideRetry} says what follows and this loop carries it out.
 */
export async function answerTurn(run: RunContext, turnIndex: number): Promise<TurnAnswer> {
  const { state, pool } = run;
  const attempts: AttemptState = { failures: 0, rejections: 0, overflowCompacted: false };
  const policy = retryPolicy(run);
  let thresholdCompacted = false;
  let attemptNumber = 0;
  while (true) {
    const target = pool.current();
    if (!target) return { ok: false, reason: "no_targets", message: "every target was dropped" };
    if (!thresholdCompacted) {
      thresholdCompacted = await compactIfNeeded(run, turnIndex, target);
      if (state.control.ended) return { ok: false, reason: state.control.ended };
    }
    if (state.control.stopRequested) await announceFinalTurn(run, turnIndex, "stop");
    else if (turnIndex >= run.options.policy.maxTurns - 1) {
      await announceFinalTurn(run, turnIndex, "max_turns");
    }
    if (await guardContext(run, turnIndex, target)) continue;
    const finalTurn = state.finalTurn !== undefined;
    const attemptSpan = state.trace.startAttempt(turnIndex, target);
    const outcome = await streamAttempt(
      {
        turnIndex,
        target,
        request: (signal) => modelRequest(run, signal, finalTurn, turnIndex, target),
        onStreamEvent: run.hooks.streamListener,
        ttsr: run.options.host.ttsr,
      },
      state,
    );
    await accountCall(run, target, outcome.usage, {
      kind: "model_call",
      turnIndex,
      attempt: ++attemptNumber,
      outcome: outcome.kind,
      ...(outcome.kind === "done" ? { stopReason: outcome.stopReason } : {}),
      ...(outcome.kind === "error" ? { errorKind: outcome.error.kind } : {}),
    });
    attemptSpan.end(attemptOutcome(outcome));

    const stored =
      outcome.kind === "done"
        ? await storeAnswer(run, turnIndex, target, outcome, finalTurn)
        : undefined;
    const verdict = verdictOf(outcome, stored?.review, state);
    const directive = decideRetry(verdict, attempts, poolView(run, target), policy);
    switch (directive.type) {
      case "accept": {
        const { review, entryId } = stored as StoredAnswer;
        if (!review.accepted) throw new Error("an accepted directive needs an accepted review");
        const { toolCalls, skippedCalls, text, report } = review;
        return {
          ok: true,
          toolCalls,
          skippedCalls,
          finalTurn,
          entryId,
          text,
          paused: review.paused === true,
          ...(report ? { report } : {}),
        };
      }
      case "end":
        if (directive.storePartial) {
          await run.session.appendMessage(
            assistantMessage(
              target,
              outcome.content,
              "aborted",
              outcome.usage,
              run.options.seams.now(),
            ),
          );
        }
        return {
          ok: false,
          reason: directive.reason,
          ...(directive.message !== undefined ? { message: directive.message } : {}),
        };
      case "retry_after_interrupt": {
        if (outcome.kind !== "interrupt")
          throw new Error("an interrupt directive needs an interrupt");
        const reminders = ruleReminderContext(run);
        if (reminders) await persistInterrupt(reminders, turnIndex, target, outcome, state);
        await run.hooks.ttsrTriggered(turnIndex, outcome.matches);
        continue;
      }
      default: {
        const rejected =
          stored && !stored.review.accepted && "problems" in stored.review
            ? { entryId: stored.entryId, problems: stored.review.problems }
            : undefined;
        const failed = outcome.kind === "error" ? outcome : undefined;
        const next = await executeDirective(
          run,
          directive,
          { turnIndex, target, ...(failed ? { failed } : {}), ...(rejected ? { rejected } : {}) },
          attempts,
        );
        if (next.next === "fail") return next.failure;
      }
    }
  }
}

/** A finished answer as stored, with its review. */
interface StoredAnswer {
  entryId: string;
  review: AnswerReview<unknown>;
}

/** Stores a finished answer (with the target that served it), announces it and reviews it. */
async function storeAnswer(
  run: RunContext,
  turnIndex: number,
  target: ModelTarget,
  outcome: Extract<AttemptOutcome, { kind: "done" }>,
  finalTurn: boolean,
): Promise<StoredAnswer> {
  const { state } = run;
  run.pool.markServed(target);
  const message = assistantMessage(
    target,
    outcome.content,
    outcome.stopReason,
    outcome.usage,
    run.options.seams.now(),
  );
  const entryId = await run.session.appendMessage(message);
  await run.hooks.assistantStored(message, entryId);
  state.channel.push({
    type: "message_end",
    turnIndex,
    entryId,
    target: targetRef(target),
    stopReason: outcome.stopReason,
  });
  const review = reviewAnswer({
    content: outcome.content,
    stopReason: outcome.stopReason,
    finalTurn,
    finalTurnTools: finalTurnToolNames(run.tools.values()),
    contract: run.reportContract,
    meta: run.hooks.finalMeta,
    entryId,
    now: run.options.seams.now(),
  });
  return { entryId, review };
}

/** What an attempt came to for the retry decision. */
function verdictOf(
  outcome: AttemptOutcome,
  review: AnswerReview<unknown> | undefined,
  state: RunState,
): AttemptVerdict {
  switch (outcome.kind) {
    case "done":
      if (review?.accepted) return { kind: "accepted" };
      if (review && "refused" in review) return { kind: "refused", text: review.text };
      return { kind: "rejected" };
    case "interrupt":
      return { kind: "interrupted" };
    case "aborted":
      return { kind: "ended", reason: state.control.ended ?? "aborted" };
    case "error":
      // An error caused by ending the run is the end, not a failure to fail over from.
      if (state.signal.aborted) return { kind: "ended", reason: state.control.ended ?? "aborted" };
      return { kind: "error", error: outcome.error };
  }
}

/** The pool as the retry decision sees it, before anything moves. */
function poolView(run: RunContext, target: ModelTarget): PoolView {
  const { pool } = run;
  return {
    size: pool.size,
    othersRateLimited: pool.othersRateLimited(target),
    hasBiggerWindow: run.contextGuard.biggerWindow(target, pool.targets) !== undefined,
  };
}

/** The retry part of the agent's policy. */
function retryPolicy(run: RunContext): RetryPolicy {
  const { policy } = run.options;
  return {
    maxRetries: policy.maxRetries,
    maxAnswerRetries: policy.maxAnswerRetries,
    retryDelayMs: policy.retryDelayMs,
    maxRetryDelayMs: policy.maxRetryDelayMs,
    classifyModelError: policy.classifyModelError,
    compactOnOverflow: run.compaction.settings.enabled,
  };
}

/**
 * Compacts before a request when the estimated prompt passed the compaction threshold,
 * which lies below the guard's limit: the guard's forced final turn is the last resort
 * when compaction is off, finds nothing to cut or cannot free enough.
 * @returns whether a compaction was tried (at most once per turn)
 */
async function compactIfNeeded(
  run: RunContext,
  turnIndex: number,
  target: ModelTarget,
): Promise<boolean> {
  const { state } = run;
  // A dropped tool output asks for room too: compacting may give the next call its space.
  const exhausted = state.contextExhausted && run.compaction.settings.enabled;
  if (!exhausted && !run.compaction.needsCompaction(target.model, promptEstimate(run))) {
    return false;
  }
  const outcome = await run.compaction.compact(target.model, "threshold", {
    signal: state.signal,
  });
  if (outcome.status === "compacted") {
    // The dropped tool output that exhausted the context is in the summary now: the run
    // goes on with its tools unless the guard still finds the prompt over the limit.
    state.contextExhausted = false;
    await accountCall(run, target, outcome.usage, {
      kind: "compaction",
      turnIndex,
      outcome: "done",
    });
  }
  state.channel.push(compactionEvent(outcome, turnIndex));
  return true;
}

/**
 * Runs the context guard before a request: over the limit, it moves to a target whose
 * window takes the prompt, or forces the final turn (also after a tool output was
 * dropped), recording what it did as an `arbor.context-guard` entry.
 * @returns true when it moved to another target (the caller starts the attempt again)
 */
async function guardContext(
  run: RunContext,
  turnIndex: number,
  target: ModelTarget,
): Promise<boolean> {
  const { state, contextGuard } = run;
  if (!contextGuard.enabled) return false;
  const estimate = promptEstimate(run);
  const verdict = state.contextExhausted
    ? {
        action: "force_final" as const,
        estimate,
        limit: contextGuard.limitFor(target.model),
      }
    : contextGuard.check(estimate, target, run.pool.targets);
  if (verdict.action === "send") return false;
  if (verdict.action === "force_final" && state.finalTurn !== undefined) {
    reportOverLimit(run, turnIndex, target, verdict.estimate, verdict.limit);
    return false;
  }
  const next = verdict.action === "switch_target" ? verdict.target : target;
  await run.session.appendCustomEntry(CONTEXT_GUARD_CUSTOM_TYPE, {
    turn: turnIndex,
    action: verdict.action,
    estimate: verdict.estimate,
    limit: verdict.limit,
    from: targetRef(target),
    to: targetRef(next),
  } satisfies ContextGuardRecord);
  state.channel.push({
    type: "context_guard",
    turnIndex,
    action: verdict.action,
    estimate: verdict.estimate,
    limit: verdict.limit,
    target: targetRef(next),
  });
  if (verdict.action === "switch_target") {
    run.pool.select(verdict.target.model);
    return true;
  }
  await announceFinalTurn(run, turnIndex, "context_limit");
  const after = promptEstimate(run);
  if (after > verdict.limit) reportOverLimit(run, turnIndex, target, after, verdict.limit);
  return false;
}

/**
 * Once the final turn is forced nothing is left to cut: a prompt still over the limit is
 * sent anyway, but never silently (an event, the result's counter, a span attribute).
 */
function reportOverLimit(
  run: RunContext,
  turnIndex: number,
  target: ModelTarget,
  estimate: number,
  limit: number,
): void {
  run.state.overLimitRequests += 1;
  run.state.channel.push({
    type: "context_guard",
    turnIndex,
    action: "sent_over_limit",
    estimate,
    limit,
    target: targetRef(target),
  });
}

/**
 * Opens the forced final turn once per run: a hidden instruction is appended (so the
 * context of the final request is in the session) and `final_turn` is emitted.
 */
async function announceFinalTurn(
  run: RunContext,
  turnIndex: number,
  reason: FinalTurnReason,
): Promise<void> {
  const { state } = run;
  if (state.finalTurn !== undefined) return;
  state.finalTurn = reason;
  await run.session.appendCustomMessageEntry(
    FINAL_TURN_CUSTOM_TYPE,
    finalTurnInstruction(
      reason,
      run.reportContract?.toolName,
      run.hooks.finalMeta && FINAL_META_TOOL_NAME,
      finalTurnToolNames(run.tools.values()),
    ),
    false,
    { reason } satisfies FinalTurnDetails,
  );
  state.channel.push({ type: "final_turn", turnIndex, reason });
}
