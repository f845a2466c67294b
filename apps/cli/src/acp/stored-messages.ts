import { isEntryOfType, type SessionEntry } from "@arbor/session-store";

/** A stored tool call: the block of an assistant message that asked for a tool. */
export interface StoredToolCall {
  id: string;
  name: string;
  arguments: unknown;
}

/** A stored message's role and content blocks (a string content is one text block). */
export function messageOf(
  entry: SessionEntry | undefined,
): { role: string; blocks: Record<string, unknown>[]; raw: Record<string, unknown> } | undefined {
  if (!entry || !isEntryOfType(entry, "message")) return undefined;
  const { message } = entry;
  const content = message.content;
  const blocks =
    typeof content === "string"
      ? [{ type: "text", text: content }]
      : ((content ?? []) as Record<string, unknown>[]);
  return { role: message.role, blocks, raw: message as Record<string, unknown> };
}

/** The text blocks of a content, joined. */
export function textOfBlocks(blocks: readonly Record<string, unknown>[]): string {
  return blocks
    .map((block) => (block.type === "text" && typeof block.text === "string" ? block.text : ""))
    .join("");
}

/** The tool calls of an assistant message's blocks. */
export function toolCallsOf(blocks: readonly Record<string, unknown>[]): StoredToolCall[] {
  return blocks.flatMap((block) =>
    block.type === "toolCall" && typeof block.id === "string" && typeof block.name === "string"
      ? [{ id: block.id, name: block.name, arguments: block.arguments ?? {} }]
      : [],
  );
}
