import type { SessionEntry } from "../format/entries.js";
import {
  type EntryProvenance,
  emptyReport,
  type ImportReport,
  RAW_LINE_CUSTOM_TYPE,
} from "./imported-log.js";

/** Fields of an entry the builder completes with `importedFrom`. */
export type EntryFields = {
  type: string;
  id: string;
  parentId: string | null;
  timestamp: string;
} & Record<string, unknown>;

/**
 * Collects the entries of one imported session in source order and counts what became of
 * each source line. Entry ids are unique: a clash gets a `~n` suffix.
 */
export class ImportedLogBuilder {
  readonly entries: SessionEntry[] = [];
  readonly report: ImportReport = emptyReport();
  private readonly byId = new Map<string, SessionEntry>();
  /** The first entry that later source lines may still change, if any. */
  private openFrom: string | undefined;

  /**
   * Marks `id` and every entry after it as open: later lines of the source may still
   * change them (the rest of a message written over several lines, a summary to come).
   */
  open(id: string): void {
    this.openFrom = id;
  }

  /** Marks everything added so far as settled: no later line changes it. */
  close(): void {
    this.openFrom = undefined;
  }

  /** Whether some entry is open. */
  isOpen(): boolean {
    return this.openFrom !== undefined;
  }

  /** How many entries at the end are open (see {@link open}). */
  openEntries(): number {
    if (this.openFrom === undefined) return 0;
    const index = this.entries.findLastIndex((e) => e.id === this.openFrom);
    return index < 0 ? 0 : this.entries.length - index;
  }

  /** The entry with this id, if one was added. */
  get(id: string): SessionEntry | undefined {
    return this.byId.get(id);
  }

  /** The id of the entry added last, or null. */
  lastId(): string | null {
    return this.entries.at(-1)?.id ?? null;
  }

  /** Adds an entry with its provenance; returns the entry (its id may carry a suffix). */
  add(fields: EntryFields, from: EntryProvenance): SessionEntry {
    let id = fields.id;
    for (let n = 2; this.byId.has(id); n++) id = `${fields.id}~${n}`;
    // A copy: a later line merged into one entry must not show in another made from the same line.
    const entry = { ...fields, id, importedFrom: { ...from } } as SessionEntry;
    this.entries.push(entry);
    this.byId.set(id, entry);
    this.report.entries++;
    return entry;
  }

  /**
   * Keeps a source line whole as a custom entry, and records why. A `torn` line (the last,
   * without its newline) may still be being written; a later import replaces it.
   */
  raw(line: number, text: string, reason: string, timestamp: string, torn = false): SessionEntry {
    this.report.raw++;
    this.report.issues.push({ line, reason });
    return this.add(
      {
        type: "custom",
        id: `line-${line}`,
        parentId: this.lastId(),
        timestamp,
        customType: RAW_LINE_CUSTOM_TYPE,
        data: { line, reason, text, ...(torn ? { torn: true } : {}) },
      },
      { line },
    );
  }
}

/** A timestamp as an ISO string, or `fallback` when it is missing or not a date. */
export function isoTime(value: unknown, fallback: string): string {
  if (typeof value === "string" || typeof value === "number") {
    const ms = typeof value === "number" ? value : Date.parse(value);
    if (Number.isFinite(ms)) return new Date(ms).toISOString();
  }
  return fallback;
}

/** A JSON line as a plain object, or the reason it is not one. */
export function parseObjectLine(
  text: string,
): { value: Record<string, unknown> } | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { error: `not JSON (${error instanceof Error ? error.message : String(error)})` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { error: "not a JSON object" };
  }
  return { value: value as Record<string, unknown> };
}
