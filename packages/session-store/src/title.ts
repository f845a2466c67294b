import type { AgentMessage, SessionEntry } from "./format/entries.js";

/** The longest automatic title, in characters, unless the caller says otherwise. */
export const DEFAULT_TITLE_LENGTH = 60;

/**
 * Makes a title from free text: whitespace collapsed, trimmed, and cut at a word boundary
 * with an ellipsis when longer than `maxLength`.
 * @example titleFromText("  fix   the\nlogin bug ") // "fix the login bug"
 */
export function titleFromText(text: string, maxLength = DEFAULT_TITLE_LENGTH): string {
  const collapsed = text.replace(/\s+/gu, " ").trim();
  const chars = [...collapsed];
  if (chars.length <= maxLength) return collapsed;
  const cut = chars.slice(0, Math.max(1, maxLength - 1)).join("");
  const space = cut.lastIndexOf(" ");
  const head = space >= maxLength / 3 ? cut.slice(0, space) : cut;
  return `${head.replace(/[\s,.;:!?-]+$/u, "")}…`;
}

/** The plain text of a message: its string content, or its text blocks joined by spaces. */
export function messageText(message: AgentMessage): string {
  const { content } = message;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((block) => block.type === "text" && typeof block.text === "string")
    .map((block) => block.text as string)
    .join(" ");
}

/** The text of the first user message with text among the entries, in file order. */
export function firstUserText(entries: Iterable<SessionEntry>): string | undefined {
  for (const entry of entries) {
    if (entry.type !== "message") continue;
    const message = (entry as { message: AgentMessage }).message;
    if (message.role !== "user") continue;
    const text = messageText(message).trim();
    if (text) return text;
  }
  return undefined;
}

/**
 * Makes a title for a session from its conversation. Supplied by the caller (the turn
 * runner passes one that asks a model); it may reject, and the title then stays as it was.
 */
export type TitleGenerator = (input: {
  firstUserMessage: string;
  messages: AgentMessage[];
  signal?: AbortSignal;
}) => Promise<string>;

/**
 * Asks a generator for a title and cleans the answer: surrounding quotes dropped,
 * whitespace collapsed, cut at `maxLength`.
 * @returns the title, or what kept the generator from giving one (it threw, or said nothing)
 */
export async function askForTitle(
  generator: TitleGenerator,
  input: Parameters<TitleGenerator>[0],
  maxLength: number,
): Promise<{ ok: true; title: string } | { ok: false; error: unknown }> {
  try {
    const raw = await generator(input);
    const title = titleFromText(raw.replace(/^["'“”‘’«»]+|["'“”‘’«»]+$/gu, ""), maxLength);
    return title
      ? { ok: true, title }
      : { ok: false, error: new Error("the generator gave an empty title") };
  } catch (error) {
    return { ok: false, error };
  }
}
