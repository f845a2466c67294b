import type { Session } from "../session.js";

/** What {@link exportJsonl} reads of a session: an open `Session` has all of it. */
export type JsonlSource = Pick<Session, "getHeader" | "getEntries" | "getLeafId">;

/**
 * The session as a JSONL file in pi's v3 format: the header, every entry of every branch,
 * and, when the leaf is not the last entry, a leaf pointer last, so pi (which takes the last
 * line as its leaf) opens it on the same path with the same context.
 * @example
 * await writeFile("session.jsonl", exportJsonl(session));
 */
export function exportJsonl(session: JsonlSource): string {
  const entries = session.getEntries();
  const lines = [JSON.stringify(session.getHeader())];
  for (const entry of entries) lines.push(JSON.stringify(entry));
  const leafId = session.getLeafId();
  const last = entries.at(-1);
  if (
    last !== undefined &&
    leafId !== last.id &&
    !(last.type === "leaf" && last.parentId === leafId)
  ) {
    const ids = new Set(entries.map((e) => e.id));
    let id = "export-leaf";
    for (let n = 2; ids.has(id); n++) id = `export-leaf-${n}`;
    lines.push(
      JSON.stringify({
        type: "leaf",
        id,
        parentId: leafId,
        timestamp: last.timestamp,
        targetId: leafId,
      }),
    );
  }
  return `${lines.join("\n")}\n`;
}
