import type { AgentMessage, ContentBlock } from "../format/entries.js";

/** A fenced code block whose fence is longer than any run of backticks in `text`. */
export function fenced(text: string, language = ""): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${fence}${language}\n${text}\n${fence}`;
}

/** Text quoted as a Markdown block quote, line by line. */
export function quoted(text: string): string {
  return text
    .split("\n")
    .map((line) => (line === "" ? ">" : `> ${line}`))
    .join("\n");
}

/** The Markdown of a message's content: text as it is, everything else marked as what it is. */
export function contentMarkdown(content: AgentMessage["content"]): string {
  if (content === undefined) return "";
  if (typeof content === "string") return content;
  return content
    .map(blockMarkdown)
    .filter((part) => part.trim() !== "")
    .join("\n\n");
}

function blockMarkdown(block: ContentBlock): string {
  const b = block as Record<string, unknown>;
  switch (block.type) {
    case "text":
      return String(b.text ?? "");
    case "thinking": {
      const text = String(b.thinking ?? "");
      if (text === "") return b.redacted === true ? "*(redacted thinking)*" : "";
      return `<details><summary>Thinking</summary>\n\n${fenced(text)}\n\n</details>`;
    }
    case "toolCall":
      return `**Tool call** \`${String(b.name ?? "")}\` (${String(b.id ?? "")})\n\n${fenced(
        JSON.stringify(b.arguments ?? {}, null, 2),
        "json",
      )}`;
    case "image":
      return `*[image${typeof b.mimeType === "string" ? `: ${b.mimeType}` : ""}]*`;
    default:
      return `*[${block.type}]*`;
  }
}

/** A tool result's content as plain text (images marked). */
export function resultText(content: AgentMessage["content"]): string {
  if (content === undefined) return "";
  if (typeof content === "string") return content;
  return content
    .map((b) => (b.type === "text" ? String((b as { text?: unknown }).text ?? "") : `[${b.type}]`))
    .join("\n");
}
