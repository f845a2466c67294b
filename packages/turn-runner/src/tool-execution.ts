import type { AgentMessage } from "@arbor/session-store";
import { ABORTED, abortedPromise } from "./abortable-wait.js";
import { type AgentTool, runToolCall } from "./agent-tool.js";
import type { RunState } from "./run-state.js";

/** A tool call as the model asked for it. */
export interface RequestedToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** What running a turn's tool calls needs. */
export interface ToolBatchInput {
  turnIndex: number;
  calls: readonly RequestedToolCall[];
  tools: ReadonlyMap<string, AgentTool>;
  /** Default timeout of a call, overridable per tool. */
  timeoutMs: number;
  /** Appends a message in order with the run's other appends. */
  appendMessage: (message: AgentMessage) => Promise<string>;
  /** Resolves once every pending append is stored. */
  flushAppends: () => Promise<unknown>;
  now: () => number;
}

/**
 * Runs a turn's tool calls in parallel, persisting each result as it finishes.
 * @returns false when the run was aborted before every result was stored
 */
export async function runToolCalls(input: ToolBatchInput, state: RunState): Promise<boolean> {
  const all = Promise.all(
    input.calls.map(async (call) => {
      const outcome = await runToolCall(input.tools.get(call.name), call, {
        signal: state.signal,
        timeoutMs: input.timeoutMs,
      });
      if (state.signal.aborted) return;
      const entryId = await input.appendMessage({
        role: "toolResult",
        toolCallId: call.id,
        toolName: call.name,
        content: outcome.content,
        isError: outcome.isError,
        timestamp: input.now(),
      });
      state.channel.push({
        type: "tool_result",
        turnIndex: input.turnIndex,
        entryId,
        toolCallId: call.id,
        toolName: call.name,
        isError: outcome.isError,
      });
    }),
  );
  const settled = await Promise.race([all, abortedPromise(state.signal)]);
  if (settled === ABORTED) return false;
  await input.flushAppends();
  return !state.signal.aborted;
}
