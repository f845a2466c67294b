import { readFile } from "node:fs/promises";
import type {
  SessionSnapshot,
  SessionSnapshotEntry,
  SessionSnapshotHeader,
} from "./session-snapshot.js";

/** A session file could not be turned into a snapshot (missing or unusable header). */
export class SessionFileError extends Error {
  override readonly name = "SessionFileError";
  readonly code = "session_file_invalid";

  /** True for a `SessionFileError` from any copy of this package. */
  static isInstance(error: unknown): error is SessionFileError {
    return (
      typeof error === "object" &&
      error !== null &&
      (error as { code?: unknown }).code === "session_file_invalid"
    );
  }
}

function parseLine(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function isEntry(value: Record<string, unknown>): value is SessionSnapshotEntry {
  return (
    typeof value.type === "string" &&
    typeof value.id === "string" &&
    (value.parentId === null || typeof value.parentId === "string") &&
    typeof value.timestamp === "string"
  );
}

// Legacy formats are upgraded in memory only (the file is never rewritten): v1 entries get
// ids chained in file order, with a compaction's `firstKeptEntryIndex` (counting the header
// as 0) turned into `firstKeptEntryId`; v2's `hookMessage` role is v3's `custom`.
function upgradeLegacy(lines: Record<string, unknown>[], version: number): void {
  if (version < 2) {
    let previous: string | null = null;
    lines.forEach((line, index) => {
      line.id = `v1-${index + 1}`;
      line.parentId = previous;
      previous = line.id as string;
    });
    for (const line of lines) {
      if (line.type !== "compaction" || typeof line.firstKeptEntryIndex !== "number") continue;
      const kept = lines[line.firstKeptEntryIndex - 1];
      if (kept) line.firstKeptEntryId = kept.id;
      delete line.firstKeptEntryIndex;
    }
  }
  for (const line of lines) {
    const message = line.message as Record<string, unknown> | undefined;
    if (line.type === "message" && message?.role === "hookMessage") {
      line.message = { ...message, role: "custom" };
    }
  }
}

/**
 * Parses the text of a session file into a snapshot, tolerantly: blank, torn or malformed
 * lines and entries without `id`/`parentId` are skipped. Format v1 and v2 files (pi's
 * older formats) are upgraded in memory. The leaf is the target of the last `leaf`
 * pointer entry if there is one, else the last entry in file order.
 *
 * @throws {SessionFileError} when the first line is not a session header.
 */
export function parseSessionJsonl(text: string): SessionSnapshot {
  const lines = text.split("\n");
  const first = parseLine(lines[0] ?? "");
  if (first?.type !== "session" || typeof first.id !== "string") {
    throw new SessionFileError(
      "The first line is not a session header ({type:'session', id, timestamp}); is this a session file?",
    );
  }
  const header: SessionSnapshotHeader = {
    ...first,
    id: first.id,
    timestamp: typeof first.timestamp === "string" ? first.timestamp : "",
  };
  const parsed: Record<string, unknown>[] = [];
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    if (!line?.trim()) continue;
    const value = parseLine(line);
    if (value && typeof value.type === "string") parsed.push(value);
  }
  const version = typeof first.version === "number" ? first.version : 1;
  if (version < 3) upgradeLegacy(parsed, version);
  const entries: SessionSnapshotEntry[] = [];
  let leafId: string | null = null;
  let pointer: string | null | undefined;
  for (const value of parsed) {
    if (!isEntry(value)) continue;
    if (value.type === "leaf") {
      pointer = typeof value.targetId === "string" ? value.targetId : null;
      continue;
    }
    entries.push(value);
    leafId = value.id;
    pointer = undefined;
  }
  return { header, entries, leafId: pointer === undefined ? leafId : pointer };
}

/**
 * Reads a session JSONL file into a {@link SessionSnapshot} with {@link parseSessionJsonl}.
 * A stop-gap until `@arbor/session-store` provides snapshots.
 */
export async function readSessionSnapshot(path: string): Promise<SessionSnapshot> {
  return parseSessionJsonl(await readFile(path, "utf8"));
}
