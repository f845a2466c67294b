import type { AgentMessage } from "../format/entries.js";

/** The longest tool result, in characters, a transcript shows by default. */
export const DEFAULT_TOOL_RESULT_MAX_CHARS = 2_000;

/** How {@link serializeTranscript} writes a conversation. */
export interface TranscriptOptions {
  /** Tool results longer than this are cut, with a note of how much was left out. */
  toolResultMaxChars?: number;
}

type Block = { type: string; [key: string]: unknown };

function blocksOf(content: AgentMessage["content"]): Block[] {
  if (content === undefined) return [];
  if (typeof content === "string") return [{ type: "text", text: content }];
  return content as Block[];
}

function textOf(content: AgentMessage["content"]): string {
  return blocksOf(content)
    .map((block) => {
      if (block.type === "text" && typeof block.text === "string") return block.text;
      if (block.type === "image") return "[image]";
      return "";
    })
    .filter((text) => text !== "")
    .join("\n");
}

/** Cuts `text` to `max` characters, saying how many were left out. */
export function truncateText(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[… ${text.length - max} more characters left out]`;
}

function assistantLines(message: AgentMessage): string[] {
  const lines: string[] = [];
  for (const block of blocksOf(message.content)) {
    if (block.type === "thinking" && typeof block.thinking === "string" && block.thinking) {
      lines.push(`[Assistant reasoning]: ${block.thinking}`);
    } else if (block.type === "text" && typeof block.text === "string" && block.text) {
      lines.push(`[Assistant]: ${block.text}`);
    } else if (block.type === "toolCall") {
      lines.push(
        `[Assistant tool call]: ${String(block.name ?? "?")}(${JSON.stringify(block.arguments ?? {})})`,
      );
    }
  }
  if (message.stopReason === "aborted") lines.push("[Assistant answer was interrupted]");
  return lines;
}

/**
 * Writes context messages as a plain-text transcript, one labelled paragraph per part
 * (`[User]:`, `[Assistant]:`, `[Tool result …]:`, …), for a model to summarize. Being text
 * inside a single request, it is read as material, not continued as a conversation. Tool
 * results are cut to `toolResultMaxChars`.
 */
export function serializeTranscript(
  messages: readonly AgentMessage[],
  options: TranscriptOptions = {},
): string {
  const max = options.toolResultMaxChars ?? DEFAULT_TOOL_RESULT_MAX_CHARS;
  const parts: string[] = [];
  for (const message of messages) {
    switch (message.role) {
      case "user":
        parts.push(`[User]: ${textOf(message.content)}`);
        break;
      case "assistant":
        parts.push(...assistantLines(message));
        break;
      case "toolResult": {
        const name = String(message.toolName ?? "tool");
        const label = message.isError === true ? `Tool error ${name}` : `Tool result ${name}`;
        parts.push(`[${label}]: ${truncateText(textOf(message.content), max)}`);
        break;
      }
      case "bashExecution":
        parts.push(
          `[User ran]: ${String(message.command ?? "")}\n${truncateText(String(message.output ?? ""), max)}`,
        );
        break;
      case "custom": {
        const text = textOf(message.content);
        if (text) parts.push(`[Note ${String(message.customType ?? "")}]: ${text}`);
        break;
      }
      case "compactionSummary":
        parts.push(`[Summary of earlier conversation]: ${String(message.summary ?? "")}`);
        break;
      case "branchSummary":
        parts.push(`[Summary of an abandoned branch]: ${String(message.summary ?? "")}`);
        break;
      default:
        break;
    }
  }
  return parts.join("\n\n");
}
