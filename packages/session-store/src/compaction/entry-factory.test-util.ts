import type { AgentMessage, SessionEntry } from "../format/entries.js";

/** Builds a linear path of message entries with ids `e0`, `e1`, … for tests. */
export function pathOf(messages: Array<AgentMessage | SessionEntry>): SessionEntry[] {
  return messages.map((item, index) => {
    const base = {
      id: `e${index}`,
      parentId: index === 0 ? null : `e${index - 1}`,
      timestamp: new Date(1_700_000_000_000 + index * 1000).toISOString(),
    };
    if ("role" in item) return { type: "message", ...base, message: item } as SessionEntry;
    return { ...item, ...base } as SessionEntry;
  });
}

/** A user message of `chars` characters (about chars/4 tokens). */
export const user = (text: string): AgentMessage => ({ role: "user", content: text, timestamp: 1 });

/** An assistant answer, optionally with tool calls `[id, name, args]`. */
export function assistant(
  text: string,
  calls: Array<[string, string, Record<string, unknown>]> = [],
  extra: Record<string, unknown> = {},
): AgentMessage {
  return {
    role: "assistant",
    content: [
      ...(text ? [{ type: "text", text }] : []),
      ...calls.map(([id, name, args]) => ({ type: "toolCall", id, name, arguments: args })),
    ],
    stopReason: calls.length > 0 ? "toolUse" : "stop",
    timestamp: 1,
    ...extra,
  };
}

/** A tool result for a call. */
export const toolResult = (id: string, name: string, text: string): AgentMessage => ({
  role: "toolResult",
  toolCallId: id,
  toolName: name,
  content: [{ type: "text", text }],
  isError: false,
  timestamp: 1,
});
