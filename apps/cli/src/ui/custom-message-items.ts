import type { SessionEntry } from "@arbor/session-store";
import type { TranscriptItem } from "./transcript-item.js";

/** A `custom_message` entry as this module reads it (stored or foreign, never trusted). */
interface CustomMessageLike {
  id: string;
  type: string;
  customType?: unknown;
  content?: unknown;
  display?: unknown;
}

/** The text of a custom message's content: a string, or its text blocks (images as a mark). */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((block: { type?: unknown; text?: unknown }) => {
      if (block?.type === "text" && typeof block.text === "string") return block.text;
      if (block?.type === "image") return "[image]";
      return "";
    })
    .filter((text) => text !== "")
    .join("\n");
}

/**
 * The transcript item of an extension's `custom_message` entry, as pi shows it: only when
 * the message asked to be displayed (`display: true`); the others go to the model alone.
 */
export function customMessageItem(entry: CustomMessageLike): TranscriptItem | undefined {
  if (entry.type !== "custom_message" || entry.display !== true) return undefined;
  return {
    kind: "custom",
    id: entry.id,
    customType: typeof entry.customType === "string" ? entry.customType : "message",
    text: contentText(entry.content),
  };
}

/**
 * Adds the displayed custom messages of `branch` that the transcript does not show yet
 * (by entry id), while a run streams: they go above the answer being streamed, so the
 * answer stays the last item.
 */
export function withNewCustomMessages(
  items: readonly TranscriptItem[],
  branch: readonly SessionEntry[],
): readonly TranscriptItem[] {
  const shown = new Set(items.map((item) => item.id));
  const added: TranscriptItem[] = [];
  for (const entry of branch) {
    if (entry.type !== "custom_message" || shown.has(entry.id)) continue;
    const item = customMessageItem(entry as CustomMessageLike);
    if (item) added.push(item);
  }
  if (added.length === 0) return items;
  const last = items.at(-1);
  if (last?.kind === "assistant" && last.status === "streaming") {
    return [...items.slice(0, -1), ...added, last];
  }
  return [...items, ...added];
}
