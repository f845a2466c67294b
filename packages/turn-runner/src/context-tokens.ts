import type { ImagePart, TextPart } from "@arbor/providers";
import {
  type AgentMessage,
  type ContextSource,
  estimateSessionTokens,
  IMAGE_TOKEN_ESTIMATE,
  reportedUsageTokens,
  toContextMessage,
} from "@arbor/session-store";
import { estimateTokens } from "./context-limit.js";

/** Counts the tokens of a text: a real tokenizer, or the chars/4 estimate without one. */
export type TokenCounter = (text: string) => number;

type Block = { type: string; [key: string]: unknown };

/** The text a model reads of one context message (tool calls as name and arguments). */
function messageText(message: AgentMessage): { text: string; images: number } {
  const pieces: string[] = [];
  let images = 0;
  for (const key of ["summary", "command", "output"] as const) {
    const value = message[key];
    if (typeof value === "string") pieces.push(value);
  }
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
  return { text: pieces.join("\n"), images };
}

/** The tokens of one context message counted with `count`; images at a flat rate. */
export function countMessageTokens(message: AgentMessage, count: TokenCounter): number {
  const { text, images } = messageText(message);
  return (text === "" ? 0 : count(text)) + images * IMAGE_TOKEN_ESTIMATE;
}

/**
 * The prompt tokens of a session's context: the provider's reported usage of the latest
 * answer (after the latest compaction) plus what came after it, counted with `count`; with
 * no such answer, every context message counted. Without `count` this is the session
 * store's chars/4 estimate.
 */
export function countSessionTokens(session: ContextSource, count?: TokenCounter): number {
  if (!count) return estimateSessionTokens(session);
  let after = 0;
  for (let id = session.getLeafId(); id !== null; ) {
    const entry = session.getEntry(id);
    if (!entry || entry.type === "compaction") break;
    const message = toContextMessage(entry);
    const reported = message && entry.type === "message" ? reportedUsageTokens(message) : undefined;
    if (reported !== undefined) return reported + after;
    if (message) after += countMessageTokens(message, count);
    id = entry.parentId;
  }
  let total = 0;
  for (const message of session.buildSessionContext().messages) {
    total += countMessageTokens(message, count);
  }
  return total;
}

/** The tokens of tool output parts: text counted with `count` (chars/4 without), images flat. */
export function countPartTokens(
  parts: ReadonlyArray<TextPart | ImagePart>,
  count: TokenCounter = estimateTokens,
): number {
  let tokens = 0;
  for (const part of parts)
    tokens += part.type === "text" ? count(part.text) : IMAGE_TOKEN_ESTIMATE;
  return tokens;
}
