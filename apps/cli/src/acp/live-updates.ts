import type { PlanEntry, SessionUpdate, StopReason } from "@agentclientprotocol/sdk/unstable";
import type { RunEvent } from "@arbor/orchestration";
import type { Session } from "@arbor/session-store";
import { ruleInterruptThought, toolResultUpdate } from "./replay-updates.js";
import { messageOf, textOfBlocks, toolCallsOf } from "./stored-messages.js";
import { toolCallView } from "./tool-call-view.js";

/**
 * Turns one prompt's run events into `session/update`s as they arrive: text and thinking
 * deltas as chunks, a tool call as soon as its arguments start streaming, then its view
 * (title, kind, locations, diff) once the answer is stored, its result once it ran; stream
 * rule interrupts as a thought naming the rule; task status reports as the plan.
 */
export class LiveUpdates {
  /** Tool calls announced, with their name and arguments once known. */
  private readonly calls = new Map<string, { name: string; args: unknown }>();
  /** The stop reason of the last stored answer (`refusal`, `length`, …). */
  lastStopReason: string | undefined;

  constructor(
    private readonly session: () => Session,
    private readonly cwd: string,
    /** Only events of this agent are shown (a tree's children run in sessions of their own). */
    private readonly agentPath: string,
  ) {}

  /** The updates one event makes (often none). */
  updatesFor(event: RunEvent): SessionUpdate[] {
    if ("ancestry" in event && event.ancestry.agentPath !== this.agentPath) return [];
    switch (event.type) {
      case "text_delta":
        return event.delta === ""
          ? []
          : [
              {
                sessionUpdate: "agent_message_chunk",
                content: { type: "text", text: event.delta },
              },
            ];
      case "thinking_delta":
        return event.delta === ""
          ? []
          : [
              {
                sessionUpdate: "agent_thought_chunk",
                content: { type: "text", text: event.delta },
              },
            ];
      case "toolcall_delta": {
        if (this.calls.has(event.toolCallId)) return [];
        this.calls.set(event.toolCallId, { name: event.toolName, args: {} });
        return [
          {
            sessionUpdate: "tool_call",
            toolCallId: event.toolCallId,
            title: event.toolName,
            kind: toolCallView(event.toolName, {}, this.cwd).kind,
            status: "pending",
          },
        ];
      }
      case "message_end":
        this.lastStopReason = event.stopReason;
        return this.storedCalls(event.entryId);
      case "tool_result": {
        const message = messageOf(this.session().getEntry(event.entryId));
        const text = message ? textOfBlocks(message.blocks) : "";
        return [
          toolResultUpdate(
            event.toolCallId,
            this.calls.get(event.toolCallId),
            text,
            event.isError,
            this.cwd,
          ),
        ];
      }
      case "ttsr_triggered":
        return event.interrupted
          ? [
              {
                sessionUpdate: "agent_thought_chunk",
                content: {
                  type: "text",
                  text: ruleInterruptThought(event.rules.map((rule) => rule.name)),
                },
              },
            ]
          : [];
      case "agent_update":
        return event.taskStatus
          ? [{ sessionUpdate: "plan", entries: planOf(event.taskStatus) }]
          : [];
      default:
        return [];
    }
  }

  /** The stored answer's tool calls: announced (if not streamed) and given their view. */
  private storedCalls(entryId: string): SessionUpdate[] {
    const message = messageOf(this.session().getEntry(entryId));
    if (!message) return [];
    return toolCallsOf(message.blocks).map((call): SessionUpdate => {
      const known = this.calls.has(call.id);
      this.calls.set(call.id, { name: call.name, args: call.arguments });
      const view = toolCallView(call.name, call.arguments, this.cwd);
      return known
        ? {
            sessionUpdate: "tool_call_update",
            toolCallId: call.id,
            ...view,
            status: "in_progress",
            rawInput: call.arguments,
          }
        : {
            sessionUpdate: "tool_call",
            toolCallId: call.id,
            ...view,
            status: "in_progress",
            rawInput: call.arguments,
          };
    });
  }
}

/** The plan a task status report shows: what is done, what runs now, what is left. */
export function planOf(status: {
  status: string;
  message: string;
  done?: string | undefined;
  pending?: string | undefined;
}): PlanEntry[] {
  const entries: PlanEntry[] = [];
  if (status.done) entries.push({ content: status.done, priority: "medium", status: "completed" });
  entries.push({
    content: status.message,
    priority: "high",
    status: status.status === "completed" ? "completed" : "in_progress",
  });
  if (status.pending) {
    entries.push({ content: status.pending, priority: "medium", status: "pending" });
  }
  return entries;
}

/** A run's end as an ACP stop reason, or undefined for a failure ACP has no reason for. */
export function stopReasonOf(
  result: { success: boolean; reason?: string | undefined },
  lastStopReason: string | undefined,
): StopReason | undefined {
  if (result.success) {
    if (lastStopReason === "refusal" || lastStopReason === "content_filter") return "refusal";
    if (lastStopReason === "length") return "max_tokens";
    return "end_turn";
  }
  switch (result.reason) {
    case "aborted":
    case "shutdown":
      return "cancelled";
    case "max_turns":
      return "max_turn_requests";
    case "truncated_answer":
      return "max_tokens";
    case "refused":
      return "refusal";
    default:
      return undefined;
  }
}
