import type { Session, SessionEntry } from "@arbor/session-store";
import type { AppDeps } from "../../app-deps.js";

/** The text of a message's content (text blocks joined). */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((block): block is { type: "text"; text: string } => block?.type === "text")
    .map((block) => block.text)
    .join("");
}

/** One entry of the path as Markdown, or undefined for entries that are not said by anyone. */
function entryMarkdown(entry: SessionEntry): string | undefined {
  if (entry.type === "message") {
    const message = (entry as { message: { role: string; content?: unknown } }).message;
    const text = textOf(message.content);
    if (message.role === "toolResult") return `### tool result\n\n${text}`;
    return text === "" ? undefined : `### ${message.role}\n\n${text}`;
  }
  if (entry.type === "custom_message") {
    const custom = entry as { customType: string; content: unknown };
    return `### ${custom.customType}\n\n${textOf(custom.content)}`;
  }
  if (entry.type === "branch_summary" || entry.type === "compaction") {
    return `### ${entry.type.replace("_", " ")}\n\n${(entry as { summary?: string }).summary ?? ""}`;
  }
  return undefined;
}

/** The session's current path (root to leaf) as Markdown. */
export function sessionMarkdown(session: Session): string {
  const leaf = session.getLeafId();
  const path = leaf === null ? [] : session.getBranch(leaf);
  const parts = path.map(entryMarkdown).filter((part): part is string => part !== undefined);
  return [`# Session ${session.id}`, `leaf: ${leaf ?? "(empty)"}`, ...parts].join("\n\n");
}

/** The session's tree as JSON: every entry with its parent, kind and number of children. */
export function sessionTreeJson(session: Session): string {
  const nodes = session.getEntries().map((entry) => ({
    id: entry.id,
    parentId: entry.parentId,
    type: entry.type,
    ...(entry.type === "message"
      ? { role: (entry as { message: { role: string } }).message.role }
      : {}),
    childCount: session.getChildren(entry.id).length,
  }));
  return JSON.stringify({ id: session.id, leafId: session.getLeafId(), nodes });
}

/** Reads the tenant's session (read-only) with `use`. */
export async function withSession<T>(
  deps: AppDeps,
  tenantId: string,
  id: string,
  use: (session: Session) => T,
): Promise<T> {
  const session = await deps.store.open(id, { readOnly: true, tenant: tenantId });
  try {
    return use(session);
  } finally {
    await session.close();
  }
}
