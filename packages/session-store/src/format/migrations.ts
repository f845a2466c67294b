import type { IdSet } from "../ids.js";
import { CURRENT_SESSION_VERSION } from "./version.js";

type RawLine = Record<string, unknown>;

/**
 * v1 → v2: entries get ids and are chained in file order (each one's parent is the entry
 * before it), and a compaction's `firstKeptEntryIndex` (a line number, the header being 0)
 * becomes `firstKeptEntryId`. Mutates `lines` (header first).
 */
export function migrateV1ToV2(lines: RawLine[], generateId: (taken: IdSet) => string): void {
  const taken = new Set<string>();
  let previousId: string | null = null;
  for (const line of lines) {
    if (line.type === "session") {
      line.version = 2;
      continue;
    }
    const id = generateId(taken);
    taken.add(id);
    line.id = id;
    line.parentId = previousId;
    previousId = id;
  }
  for (const line of lines) {
    if (line.type !== "compaction" || typeof line.firstKeptEntryIndex !== "number") continue;
    const target = lines[line.firstKeptEntryIndex];
    if (target && target.type !== "session" && typeof target.id === "string") {
      line.firstKeptEntryId = target.id;
    }
    delete line.firstKeptEntryIndex;
  }
}

/** v2 → v3: the `hookMessage` message role is renamed `custom`. Mutates `lines`. */
export function migrateV2ToV3(lines: RawLine[]): void {
  for (const line of lines) {
    if (line.type === "session") {
      line.version = 3;
      continue;
    }
    const message = line.message as RawLine | undefined;
    if (line.type === "message" && message?.role === "hookMessage") message.role = "custom";
  }
}

/**
 * Brings parsed lines (header first) to {@link CURRENT_SESSION_VERSION}. Idempotent: lines
 * already current are left alone.
 * @returns the version the lines had before, so callers know whether to rewrite
 */
export function migrateToCurrent(lines: RawLine[], generateId: (taken: IdSet) => string): number {
  const header = lines[0];
  const from = typeof header?.version === "number" ? header.version : 1;
  if (from >= CURRENT_SESSION_VERSION) return from;
  if (from < 2) migrateV1ToV2(lines, generateId);
  if (from < 3) migrateV2ToV3(lines);
  return from;
}
