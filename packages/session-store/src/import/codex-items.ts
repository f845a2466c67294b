import type { ContentBlock } from "../format/entries.js";
import type { CodexResponseItem } from "./codex-lines.js";

/** A Codex content part (`input_text`, `output_text`, `input_image`) as an Arbor block. */
export function convertCodexPart(part: unknown): ContentBlock | undefined {
  if (typeof part !== "object" || part === null) return undefined;
  const p = part as Record<string, unknown>;
  switch (p.type) {
    case "input_text":
    case "output_text":
    case "text":
      return { type: "text", text: String(p.text ?? "") };
    case "input_image": {
      const url = typeof p.image_url === "string" ? p.image_url : "";
      const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
      if (match) return { type: "image", mimeType: match[1] as string, data: match[2] as string };
      return { type: "image", url };
    }
    default:
      return typeof p.type === "string" ? { ...p, type: p.type } : undefined;
  }
}

/** The content parts of a `message` item as Arbor blocks. */
export function messageBlocks(item: CodexResponseItem): ContentBlock[] {
  if (typeof item.content === "string") return [{ type: "text", text: item.content }];
  if (!Array.isArray(item.content)) return [];
  return item.content.map(convertCodexPart).filter((b): b is ContentBlock => b !== undefined);
}

/** The block an assistant-side item (reasoning, a tool call) adds to the assistant message. */
export function assistantBlock(item: CodexResponseItem): ContentBlock {
  switch (item.type) {
    case "reasoning": {
      const texts = [...textsOf(item.summary), ...textsOf(item.content)];
      return {
        type: "thinking",
        thinking: texts.join("\n\n"),
        ...(item.encrypted_content ? { thinkingSignature: item.encrypted_content } : {}),
      };
    }
    case "function_call":
      return {
        type: "toolCall",
        id: item.call_id ?? "",
        name: item.name ?? "",
        arguments: parseArguments(item.arguments),
      };
    case "custom_tool_call":
      return {
        type: "toolCall",
        id: item.call_id ?? "",
        name: item.name ?? "",
        arguments: { input: item.input },
      };
    case "local_shell_call":
      return {
        type: "toolCall",
        id: item.call_id ?? String(item.id ?? ""),
        name: "local_shell",
        arguments: (item.action as Record<string, unknown> | undefined) ?? {},
      };
    default:
      // web_search_call and items of newer versions: kept as they are.
      return { ...item, type: `codex_${item.type}` };
  }
}

/** The text and error flag of a tool call's output (a string, or `{ content, success }`). */
export function toolOutput(output: unknown): { text: string; isError: boolean } {
  if (typeof output === "string") return { text: output, isError: false };
  if (typeof output === "object" && output !== null) {
    const o = output as Record<string, unknown>;
    const text = typeof o.content === "string" ? o.content : JSON.stringify(o.content ?? o);
    return { text, isError: o.success === false };
  }
  return { text: output === undefined ? "" : JSON.stringify(output), isError: false };
}

function parseArguments(text: string | undefined): unknown {
  if (text === undefined) return {};
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null ? value : { value };
  } catch {
    return { raw: text };
  }
}

function textsOf(parts: unknown): string[] {
  if (!Array.isArray(parts)) return [];
  return parts
    .map((p) =>
      typeof p === "object" && p !== null ? (p as Record<string, unknown>).text : undefined,
    )
    .filter((t): t is string => typeof t === "string");
}
