/*
 * Writes the compaction summary itself instead of asking the model: a list of what the
 * user asked for and how much was summarized. Deterministic and free, at the price of
 * detail; swap `summarize` for a call to a cheaper model (with `arbor.exec` or `fetch`) to
 * keep the idea and get better summaries.
 */
import type { ExtensionAPI, SessionBeforeCompactEvent } from "@arbor/extensions-api";

/** Longest excerpt of one user request kept in the summary. */
const MAX_REQUEST_CHARS = 120;

export default function customCompaction(arbor: ExtensionAPI): void {
  arbor.on("session_before_compact", (event) => ({
    summary: summarize(event, arbor.extensionName),
    details: {
      summarizedBy: arbor.extensionName,
      messages: event.messagesToSummarize.length,
      tokensBefore: event.tokensBefore,
    },
  }));
}

function summarize(event: SessionBeforeCompactEvent, writer: string): string {
  const requests = event.messagesToSummarize
    .filter((message) => message.role === "user")
    .map((message) => excerpt(textOf(message.content)))
    .filter((text) => text !== "");
  const toolResults = event.messagesToSummarize.filter((m) => m.role === "toolResult").length;
  return [
    "## Earlier in this session",
    ...(event.customInstructions ? [`Focus: ${event.customInstructions}`] : []),
    ...requests.map((request) => `- The user asked: ${request}`),
    `(${event.messagesToSummarize.length} messages and ${toolResults} tool results summarized by ${writer})`,
  ].join("\n");
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((block: { type?: unknown; text?: unknown }) =>
      block.type === "text" && typeof block.text === "string" ? block.text : "",
    )
    .join(" ");
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > MAX_REQUEST_CHARS ? `${flat.slice(0, MAX_REQUEST_CHARS - 1)}…` : flat;
}
