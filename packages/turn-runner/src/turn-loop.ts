import type { ImagePart } from "@arbor/providers";
import type { AgentMessage } from "@arbor/session-store";
import type { AgentFailureReason, AgentResult } from "./contracts/index.js";
import { FINAL_REPORT_TOOL_NAME, failedReport } from "./final-report.js";
import { promptEstimate } from "./model-request.js";
import { userMessageContent } from "./prompt-input.js";
import { type RunContext, ruleReminderContext, servingModel } from "./run/run-context.js";
import { recordSystemPrompt } from "./session-records.js";
import { targetRef } from "./target-pool.js";
import { runToolCalls } from "./tool-execution.js";
import { injectQueuedRules } from "./ttsr-interrupt.js";
import type { AcceptedAnswer } from "./turn-answer.js";
import { answerTurn } from "./turn-attempts.js";

/** Failures of a turn whose answers were rejected (as opposed to failed model calls). */
const ANSWER_FAILURES: ReadonlySet<AgentFailureReason | undefined> = new Set([
  "tool_calls_in_final_turn",
  "empty_answer",
  "truncated_answer",
  "final_report_missing",
  "final_report_invalid",
] as const);

/**
 * Runs one prompt to its end: stores the user message (none when `text` is undefined: a run
 * extensions started from the session as it is), then runs turns, each one answer and its
 * tool calls, until the model answers without tool calls, a limit is hit or the run is
 * ended. Emits `agent_end` with the result it resolves to.
 */
export async function runTurns(
  run: RunContext,
  text: string | undefined,
  images?: readonly ImagePart[],
): Promise<AgentResult> {
  const { state } = run;
  let turns = 0;
  await state.trace.begin({
    "arbor.session.id": run.session.id,
    "arbor.session.file": run.session.location,
  });
  const finish = (reason?: AgentFailureReason, message?: string): AgentResult => {
    const { session } = run;
    const common = {
      runId: state.channel.runId,
      turns,
      usage: state.usage,
      cost: state.cost,
      ...(state.overLimitRequests > 0 ? { overLimitRequests: state.overLimitRequests } : {}),
      session: { id: session.id, location: session.location },
      sessionFile: session.location,
    };
    let result: AgentResult;
    const progress = { turns, cost: state.cost };
    if (reason === undefined) {
      const finalReport = state.finalReport ?? {
        status: "delivered",
        value: undefined,
        repaired: false,
      };
      result = { success: true, finalReport, ...common };
      state.channel.push({ type: "agent_finished", ...progress });
    } else {
      const finalReport = failedReport(reason, message);
      result = { success: false, finalReport, reason, message: finalReport.message, ...common };
      state.channel.push({ type: "agent_failed", reason, message: result.message, ...progress });
    }
    state.channel.push({ type: "agent_end", result });
    return result;
  };
  const { hooks } = run;
  const maxTurns = run.options.policy.maxTurns;
  const firstModel = run.pool.current() ?? run.options.definition.targets[0];
  if (firstModel) {
    state.channel.push({ type: "agent_started", target: targetRef(firstModel), maxTurns });
  }
  await hooks.startRun(text, run.options.definition.systemPrompt, state.signal, images);
  // The prompt this run sends (the agent's, or one an extension set), once per change.
  await recordSystemPrompt(run.session, hooks.systemPrompt);
  if (text !== undefined) {
    const message: AgentMessage = {
      role: "user",
      content: userMessageContent(text, images),
      timestamp: run.options.seams.now(),
    };
    await hooks.persistMessage(message);
  }
  while (true) {
    if (state.control.ended) return finish(state.control.ended);
    // A stop asked for on the last allowed turn still gets its final turn.
    if (turns >= maxTurns && !(state.control.stopRequested && state.finalTurn === undefined)) {
      return finish("max_turns", `stopped after ${maxTurns} turns`);
    }
    const turnIndex = turns++;
    state.turnIndex = turnIndex;
    state.channel.push({ type: "turn_start", turnIndex });
    state.channel.push({
      type: "agent_update",
      turnIndex,
      kind: "turn",
      message: `turn ${turnIndex + 1} of ${maxTurns}`,
    });
    await hooks.turnStart(turnIndex);
    const answer = await answerTurn(run, turnIndex);
    if (!answer.ok) {
      state.channel.push({ type: "turn_end", turnIndex });
      await hooks.turnEnd(turnIndex);
      // The last allowed turn gave no usable answer: the run ran out of turns.
      if (state.finalTurn === "max_turns" && ANSWER_FAILURES.has(answer.reason)) {
        return finish("max_turns", `no final answer after ${maxTurns} turns: ${answer.message}`);
      }
      return finish(answer.reason, answer.message);
    }
    // A paused answer (`pause_turn`) goes on like a tool turn: the next call continues it.
    const goesOn = answer.toolCalls.length > 0 || answer.paused;
    if (answer.report || !goesOn) {
      await recordFinalAnswer(run, answer);
    }
    if (answer.toolCalls.length > 0) {
      const outputBudget = run.contextGuard.toolBudget(promptEstimate(run), servingModel(run));
      const batch = await runToolCalls(
        {
          turnIndex,
          calls: answer.toolCalls,
          timeoutMs: run.options.policy.toolTimeoutMs,
          maxCalls: run.options.policy.maxToolCallsPerTurn,
          failureOverrides: run.options.policy.toolFailureOverrides,
          outputBudget,
          now: run.options.seams.now,
          hooks,
        },
        state,
      );
      if (outputBudget.exceeded) state.contextExhausted = true;
      if (batch === "ended") {
        state.channel.push({ type: "turn_end", turnIndex });
        await hooks.turnEnd(turnIndex);
        return finish(state.control.ended ?? "aborted");
      }
    }
    const reminders = ruleReminderContext(run);
    if (reminders) await injectQueuedRules(reminders, turnIndex, state);
    state.channel.push({ type: "turn_end", turnIndex });
    run.options.host.ttsr?.onTurnEnd();
    await hooks.turnEnd(turnIndex);
    // Messages extensions queued for after the turn keep the run going, so the model answers them.
    const delivered = await hooks.deliverAfterTurn(goesOn);
    if (answer.finalTurn && goesOn && !answer.report && state.finalTurn === "max_turns") {
      return finish("max_turns", `no final answer after ${maxTurns} turns: the last one paused`);
    }
    if ((!goesOn && !delivered) || answer.finalTurn) {
      await titleAfterExchange(run);
      if (state.finalReport) await hooks.complete(state.finalReport);
      return finish();
    }
  }
}

/**
 * Stores what ends a run: a delivered report is acknowledged with a `toolResult` (calls
 * made beside it get an error result, never run); a text answer becomes the report.
 */
async function recordFinalAnswer(run: RunContext, answer: AcceptedAnswer): Promise<void> {
  const { state } = run;
  const { report } = answer;
  if (!report) {
    state.finalReport = {
      status: "delivered",
      value: answer.text,
      repaired: false,
      entryId: answer.entryId,
    };
    return;
  }
  if (report.toolCallId !== undefined) {
    await run.session.appendMessage({
      role: "toolResult",
      toolCallId: report.toolCallId,
      toolName: FINAL_REPORT_TOOL_NAME,
      content: [{ type: "text", text: "Final report received." }],
      isError: false,
      details: { repaired: report.repaired },
      timestamp: run.options.seams.now(),
    });
  }
  for (const { call, text, isError } of report.metaResults ?? []) {
    await run.session.appendMessage({
      role: "toolResult",
      toolCallId: call.id,
      toolName: call.name,
      content: [{ type: "text", text }],
      isError,
      timestamp: run.options.seams.now(),
    });
  }
  for (const call of answer.skippedCalls) {
    await run.session.appendMessage({
      role: "toolResult",
      toolCallId: call.id,
      toolName: call.name,
      content: [{ type: "text", text: "Not run: the final report ended the task." }],
      isError: true,
      timestamp: run.options.seams.now(),
    });
  }
  state.finalReport = {
    status: "delivered",
    value: report.value,
    repaired: report.repaired,
    // A report locked while its metadata was missing came with an earlier answer.
    entryId: report.entryId ?? answer.entryId,
    ...(report.meta ? { meta: report.meta } : {}),
  };
}

/** Generates the session's title after its first exchange (when asked to); never throws. */
async function titleAfterExchange(run: RunContext): Promise<void> {
  const { state } = run;
  const titled = await run.compaction.titleAfterExchange(servingModel(run), state.signal);
  if (!titled) return;
  state.channel.push({
    type: "title",
    title: titled.error === undefined ? titled.title : undefined,
    ...(titled.error !== undefined ? { error: String(titled.error) } : {}),
  });
}
