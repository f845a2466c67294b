import type { ContentBlock } from "../format/entries.js";
import type { ClaudeBlock, ClaudeUsage } from "./claude-code-lines.js";

/** Arbor's (pi's) usage record for an assistant message. */
export interface ImportedUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
}

/** Converts one block of an assistant or user message to Arbor's (pi's) block shape. */
export function convertClaudeBlock(block: ClaudeBlock): ContentBlock {
  const b = block as Record<string, unknown>;
  switch (block.type) {
    case "text":
      return { type: "text", text: String(b.text ?? "") };
    case "thinking":
      return {
        type: "thinking",
        thinking: String(b.thinking ?? ""),
        ...(typeof b.signature === "string" ? { thinkingSignature: b.signature } : {}),
      };
    case "redacted_thinking":
      return { type: "thinking", thinking: "", redacted: true, thinkingSignature: b.data };
    case "tool_use":
      return {
        type: "toolCall",
        id: String(b.id ?? ""),
        name: String(b.name ?? ""),
        arguments: b.input ?? {},
      };
    case "image": {
      const source = b.source as Record<string, unknown> | undefined;
      if (source?.type === "base64" && typeof source.data === "string") {
        return { type: "image", data: source.data, mimeType: String(source.media_type ?? "") };
      }
      return { ...block };
    }
    default:
      return { ...block };
  }
}

/** The content of a `tool_result` block as Arbor (pi) blocks. */
export function toolResultContent(content: unknown): ContentBlock[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  if (Array.isArray(content)) {
    return content
      .filter((b): b is ClaudeBlock => typeof b === "object" && b !== null && "type" in b)
      .map(convertClaudeBlock);
  }
  return [];
}

/** Anthropic usage as Arbor (pi) records it. */
export function convertClaudeUsage(usage: ClaudeUsage): ImportedUsage {
  const input = usage.input_tokens ?? 0;
  const output = usage.output_tokens ?? 0;
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const cacheWrite = usage.cache_creation_input_tokens ?? 0;
  return {
    input,
    output,
    cacheRead,
    cacheWrite,
    totalTokens: input + output + cacheRead + cacheWrite,
  };
}

const STOP_REASONS: Record<string, string> = {
  end_turn: "stop",
  stop_sequence: "stop",
  tool_use: "toolUse",
  max_tokens: "length",
  refusal: "error",
  pause_turn: "stop",
};

/** Anthropic's stop reason as Arbor (pi) names it. */
export function convertStopReason(reason: string | null | undefined): string | undefined {
  if (!reason) return undefined;
  return STOP_REASONS[reason] ?? reason;
}
