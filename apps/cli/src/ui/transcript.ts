import {
  CHILD_SESSION_CUSTOM_TYPE,
  type ContentBlock,
  isArborEntry,
  isEntryOfType,
  messageText,
  readArborEntry,
  type Session,
  TTSR_INTERRUPT_CUSTOM_TYPE,
} from "@arbor/session-store";
import { childUpdateOfEntry, withChildUpdate } from "./child-items.js";
import { customMessageItem } from "./custom-message-items.js";
import type { ToolCallView, TranscriptItem } from "./transcript-item.js";

export type { ToolCallView, TranscriptItem } from "./transcript-item.js";

let counter = 0;
/** A key for an item that has no entry id (yet). */
export function nextItemId(prefix: string): string {
  counter += 1;
  return `${prefix}-${counter}`;
}

function blocksOf(content: unknown): ContentBlock[] {
  return Array.isArray(content) ? (content as ContentBlock[]) : [];
}

/** The transcript of the active path of a session, as it is stored. */
export function transcriptFromSession(session: Session): TranscriptItem[] {
  let items: TranscriptItem[] = [];
  const toolStatus = new Map<string, ToolCallView>();
  for (const entry of session.getBranch()) {
    if (isEntryOfType(entry, "message")) {
      const { message } = entry;
      if (message.role === "user") {
        items.push({ kind: "user", id: entry.id, text: messageText(message) });
      } else if (message.role === "assistant") {
        const blocks = blocksOf(message.content);
        const tools = blocks
          .filter((block) => block.type === "toolCall")
          .map((block): ToolCallView => {
            const view: ToolCallView = {
              id: String(block.id ?? ""),
              name: String(block.name ?? "tool"),
              status: "running",
            };
            toolStatus.set(view.id, view);
            return view;
          });
        const thinking = blocks
          .filter((block) => block.type === "thinking")
          .map((block) => String(block.thinking ?? ""))
          .join("");
        const aborted = (message as { stopReason?: unknown }).stopReason === "aborted";
        items.push({
          kind: "assistant",
          id: entry.id,
          text: messageText(message),
          thinking,
          tools,
          status: aborted ? "aborted" : "done",
        });
      } else if (message.role === "toolResult") {
        const call = toolStatus.get(String((message as { toolCallId?: unknown }).toolCallId));
        if (call) call.status = (message as { isError?: unknown }).isError ? "error" : "done";
      }
    } else if (isEntryOfType(entry, "compaction")) {
      items.push({
        kind: "notice",
        id: entry.id,
        text: `Compacted: ${entry.tokensBefore} tokens of earlier conversation are now a summary.`,
        tone: "info",
      });
    } else if (isArborEntry(entry, TTSR_INTERRUPT_CUSTOM_TYPE)) {
      // A damaged reminder still shows that a rule fired, without names.
      const details = readArborEntry(entry, TTSR_INTERRUPT_CUSTOM_TYPE);
      const partial = items.findIndex(
        (item) => details?.partialEntryId !== undefined && item.id === details.partialEntryId,
      );
      if (partial >= 0) items.splice(partial, 1);
      items.push(ruleNotice(entry.id, details?.rules ?? [], partial >= 0));
    } else if (isEntryOfType(entry, "custom_message")) {
      const item = customMessageItem(entry);
      if (item) items.push(item);
    } else if (isEntryOfType(entry, "custom") && isArborEntry(entry, CHILD_SESSION_CUSTOM_TYPE)) {
      // A child run of an agent file: one row per child session, its latest outcome.
      const update = childUpdateOfEntry(entry.id, entry.data);
      if (update) items = [...withChildUpdate(items, update)];
    } else if (isEntryOfType(entry, "branch_summary")) {
      items.push({
        kind: "notice",
        id: entry.id,
        text: `Branch summary: ${entry.summary}`,
        tone: "info",
      });
    }
  }
  return items;
}

/** The short notice a stream-rule interrupt shows: never an error, just what happened. */
export function ruleNotice(
  id: string,
  rules: readonly string[],
  interrupted: boolean,
): TranscriptItem {
  const names = rules.length > 0 ? rules.join(", ") : "a stream rule";
  return {
    kind: "notice",
    id,
    text: interrupted
      ? `Stream rule ${names} matched: the answer was restarted with a reminder.`
      : `Stream rule ${names} matched: a reminder goes with the next request.`,
    tone: "info",
  };
}
