import type { AgentMessage, SessionEntry } from "../format/entries.js";
import { buildContextFromPath, toContextMessage } from "../tree/session-context.js";

/** Tokens an image is assumed to cost, whatever its size: a conservative flat rate. */
export const IMAGE_TOKEN_ESTIMATE = 1_200;

type Block = { type: string; [key: string]: unknown };

/**
 * A tokenizer-free estimate of the tokens a text costs: one token per four UTF-16 code
 * units, rounded up. It overestimates English prose slightly, which errs on the safe side.
 */
export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

function blockChars(block: Block): number {
  switch (block.type) {
    case "text":
      return typeof block.text === "string" ? block.text.length : 0;
    case "thinking":
      return typeof block.thinking === "string" ? block.thinking.length : 0;
    case "toolCall":
      return String(block.name ?? "").length + JSON.stringify(block.arguments ?? {}).length;
    default:
      return 0;
  }
}

/** Counts the tokens of a text: a real tokenizer, where the caller has one. */
export type TokenCounter = (text: string) => number;

/** Counts a message's text (as {@link estimateMessageTokens} reads it) with a tokenizer. */
function countMessageText(message: AgentMessage, count: TokenCounter): number {
  const pieces: string[] = [];
  let images = 0;
  for (const value of [message.summary, message.command, message.output])
    if (typeof value === "string") pieces.push(value);
  const { content } = message;
  if (typeof content === "string") pieces.push(content);
  else if (Array.isArray(content)) {
    for (const block of content as Block[]) {
      if (block.type === "image") images++;
      else if (block.type === "text" && typeof block.text === "string") pieces.push(block.text);
      else if (block.type === "thinking" && typeof block.thinking === "string")
        pieces.push(block.thinking);
      else if (block.type === "toolCall")
        pieces.push(String(block.name ?? ""), JSON.stringify(block.arguments ?? {}));
    }
  }
  const text = pieces.join("\n");
  return (text === "" ? 0 : count(text)) + images * IMAGE_TOKEN_ESTIMATE;
}

/**
 * Estimates the tokens a context message costs: its text, thinking, tool calls (name and
 * arguments) and summaries at four characters a token (or counted with `count`, a real
 * tokenizer, when given), images at a flat rate.
 */
export function estimateMessageTokens(message: AgentMessage, count?: TokenCounter): number {
  if (count) return countMessageText(message, count);
  let chars = 0;
  let images = 0;
  if (typeof message.summary === "string") chars += message.summary.length;
  if (typeof message.command === "string") chars += message.command.length;
  if (typeof message.output === "string") chars += message.output.length;
  const { content } = message;
  if (typeof content === "string") chars += content.length;
  else if (Array.isArray(content)) {
    for (const block of content as Block[]) {
      if (block.type === "image") images++;
      else chars += blockChars(block);
    }
  }
  return Math.ceil(chars / 4) + images * IMAGE_TOKEN_ESTIMATE;
}

/**
 * Estimates the tokens an entry adds to a context: the estimate of the message it stands
 * for, or 0 for entries that are not messages (settings, labels, extension state).
 */
export function estimateEntryTokens(entry: SessionEntry, count?: TokenCounter): number {
  const message = toContextMessage(entry);
  return message ? estimateMessageTokens(message, count) : 0;
}

/** The tokens a provider reported for one answer, or undefined if none were recorded. */
export function reportedUsageTokens(message: AgentMessage): number | undefined {
  if (message.role !== "assistant") return undefined;
  if (message.stopReason === "aborted" || message.stopReason === "error") return undefined;
  const usage = message.usage as Record<string, unknown> | undefined;
  if (!usage || typeof usage !== "object") return undefined;
  if (typeof usage.totalTokens === "number" && usage.totalTokens > 0) return usage.totalTokens;
  let total = 0;
  for (const key of ["input", "output", "cacheRead", "cacheWrite"]) {
    const value = usage[key];
    if (typeof value === "number") total += value;
  }
  return total > 0 ? total : undefined;
}

/**
 * Estimates the tokens of the context a path (root first) gives the model. The usage the
 * provider reported for the latest answer after the latest compaction counts for
 * everything up to that answer, and estimates are added for what came after it; without
 * such an answer every context message is estimated. Usage reported before a compaction
 * is ignored, because it measured the context the compaction replaced.
 */
export function estimateContextTokens(path: readonly SessionEntry[]): number {
  let compactionIndex = -1;
  for (let i = path.length - 1; i >= 0; i--) {
    if ((path[i] as SessionEntry).type === "compaction") {
      compactionIndex = i;
      break;
    }
  }
  for (let i = path.length - 1; i > compactionIndex; i--) {
    const message = toContextMessage(path[i] as SessionEntry);
    const reported =
      message && (path[i] as SessionEntry).type === "message"
        ? reportedUsageTokens(message)
        : undefined;
    if (reported === undefined) continue;
    let after = 0;
    for (let j = i + 1; j < path.length; j++) after += estimateEntryTokens(path[j] as SessionEntry);
    return reported + after;
  }
  let total = 0;
  for (const message of buildContextFromPath(path).messages) {
    total += estimateMessageTokens(message);
  }
  return total;
}

/** What {@link estimateSessionTokens} reads from a session: pi's read API. */
export interface ContextSource {
  getLeafId(): string | null;
  getEntry(id: string): SessionEntry | undefined;
  buildSessionContext(): { messages: AgentMessage[] };
}

/**
 * {@link estimateContextTokens} for a session's leaf, reading as few entries as it can:
 * it walks back from the leaf only until the latest answer with reported usage (or the
 * latest compaction), so a check before every request stays cheap on a large session.
 * With `count` (a real tokenizer), what came after that answer is counted with it.
 */
export function estimateSessionTokens(session: ContextSource, count?: TokenCounter): number {
  let after = 0;
  for (let id = session.getLeafId(); id !== null; ) {
    const entry = session.getEntry(id);
    if (!entry || entry.type === "compaction") break;
    const message = entry.type === "message" ? toContextMessage(entry) : undefined;
    const reported = message ? reportedUsageTokens(message) : undefined;
    if (reported !== undefined) return reported + after;
    after += estimateEntryTokens(entry, count);
    id = entry.parentId;
  }
  let total = 0;
  for (const message of session.buildSessionContext().messages) {
    total += estimateMessageTokens(message, count);
  }
  return total;
}
