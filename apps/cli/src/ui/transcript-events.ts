import type { AgentEvent } from "@arbor/orchestration";
import { contextNoticeFor } from "../output/index.js";
import { nextItemId, ruleNotice, type TranscriptItem } from "./transcript.js";

type AssistantItem = Extract<TranscriptItem, { kind: "assistant" }>;

/**
 * Replaces the answer being streamed (the newest answer, while streaming) with `edit(it)`.
 * Notices that arrived meanwhile (a compaction, a retry) may sit after it; the answer is
 * found past them, so none of its text is lost.
 */
function editStreaming(
  items: readonly TranscriptItem[],
  edit: (item: AssistantItem) => TranscriptItem,
): readonly TranscriptItem[] {
  for (let index = items.length - 1; index >= 0; index -= 1) {
    const item = items[index];
    if (item?.kind === "user") return items;
    if (item?.kind !== "assistant") continue;
    if (item.status !== "streaming") return items;
    return [...items.slice(0, index), edit(item), ...items.slice(index + 1)];
  }
  return items;
}

/** Adds a notice; the answer being streamed stays below it, where its text goes on arriving. */
function withNotice(
  items: readonly TranscriptItem[],
  added: TranscriptItem,
): readonly TranscriptItem[] {
  const last = items.at(-1);
  return last?.kind === "assistant" && last.status === "streaming"
    ? [...items.slice(0, -1), added, last]
    : [...items, added];
}

function notice(text: string, tone: "info" | "warning" | "error"): TranscriptItem {
  return { kind: "notice", id: nextItemId("n"), text, tone };
}

function markToolResult(
  items: readonly TranscriptItem[],
  toolCallId: string,
  isError: boolean,
): readonly TranscriptItem[] {
  return items.map((item) =>
    item.kind === "assistant" && item.tools.some((tool) => tool.id === toolCallId)
      ? {
          ...item,
          tools: item.tools.map((tool) =>
            tool.id === toolCallId
              ? { ...tool, status: isError ? ("error" as const) : ("done" as const) }
              : tool,
          ),
        }
      : item,
  );
}

/**
 * Folds one agent event into the transcript: answers stream into the last item, a stream
 * rule interrupt becomes a notice above the retried answer, an abort marks the partial
 * answer, and a failure adds an error notice.
 */
export function applyAgentEvent(
  items: readonly TranscriptItem[],
  event: AgentEvent,
): readonly TranscriptItem[] {
  switch (event.type) {
    case "turn_start":
      return [
        ...items,
        {
          kind: "assistant",
          id: nextItemId("a"),
          text: "",
          thinking: "",
          tools: [],
          status: "streaming",
        },
      ];
    case "text_delta":
      return editStreaming(items, (item) => ({ ...item, text: item.text + event.delta }));
    case "thinking_delta":
      return editStreaming(items, (item) => ({ ...item, thinking: item.thinking + event.delta }));
    case "toolcall_delta":
      return editStreaming(items, (item) =>
        item.tools.some((tool) => tool.id === event.toolCallId)
          ? item
          : {
              ...item,
              tools: [
                ...item.tools,
                { id: event.toolCallId, name: event.toolName, status: "running" },
              ],
            },
      );
    case "message_end":
      return editStreaming(items, (item) => ({ ...item, id: event.entryId, status: "done" }));
    case "tool_result":
      return markToolResult(items, event.toolCallId, event.isError);
    case "ttsr_triggered": {
      const ruleItem = ruleNotice(
        nextItemId("r"),
        event.rules.map((rule) => rule.name),
        event.interrupted,
      );
      const last = items.at(-1);
      if (event.interrupted && last?.kind === "assistant" && last.status === "streaming") {
        // The cut answer is replaced by its retry, below the notice.
        const retry: TranscriptItem = {
          ...last,
          id: nextItemId("a"),
          text: "",
          thinking: "",
          tools: [],
        };
        return [...items.slice(0, -1), ruleItem, retry];
      }
      return [...items, ruleItem];
    }
    case "retry": {
      const reset = editStreaming(items, (item) => ({
        ...item,
        text: "",
        thinking: "",
        tools: [],
      }));
      const text = `${event.target.model}: ${event.kind} (${event.message}); retrying`;
      return withNotice(reset, notice(text, "warning"));
    }
    case "agent_end": {
      const { result } = event;
      if (result.success) return items;
      const aborted = editStreaming(items, (item) => ({ ...item, status: "aborted" }));
      if (result.reason === "aborted") return aborted;
      const detail = result.message ? `: ${result.message}` : "";
      return [...aborted, notice(`The answer failed (${result.reason}${detail}).`, "error")];
    }
    default:
      return applyNewerEvent(items, event);
  }
}

/** Events the runner gained after this app was written, shown when they are known. */
function applyNewerEvent(
  items: readonly TranscriptItem[],
  event: AgentEvent,
): readonly TranscriptItem[] {
  const context = contextNoticeFor(event);
  if (context) return withNotice(items, notice(context.text, context.level));
  return items;
}
