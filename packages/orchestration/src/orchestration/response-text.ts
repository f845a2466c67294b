import { isEntryOfType, type Session } from "@arbor/session-store";
import type { AgentResult } from "@arbor/turn-runner";

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part: { type?: unknown; text?: unknown }) =>
      part?.type === "text" && typeof part.text === "string" ? part.text : "",
    )
    .join("");
}

/** The text of the last assistant answer on the session's path, or `""`. */
export function lastAssistantText(session: Session): string {
  const branch = session.getBranch();
  for (let i = branch.length - 1; i >= 0; i--) {
    const entry = branch[i];
    if (entry && isEntryOfType(entry, "message") && entry.message.role === "assistant") {
      const text = textOf(entry.message.content);
      if (text.trim() !== "") return text;
    }
  }
  return "";
}

/**
 * What an agent answered: its final report (text as is, anything else as JSON), else the
 * last assistant text of its session; a failure as `failed (reason): message`.
 */
export function responseText(result: AgentResult, session: Session | undefined): string {
  if (!result.success) return `failed (${result.reason}): ${result.message}`;
  const value = result.finalReport.value;
  if (typeof value === "string" && value.trim() !== "") return value;
  if (value !== undefined && typeof value !== "string") return JSON.stringify(value, null, 2);
  return session ? lastAssistantText(session) : "";
}
