import type { SessionEntry } from "../format/entries.js";
import type { SessionStore } from "../store/session-store.js";
import { SessionNotFoundError } from "../store/store-errors.js";
import { type ImportedLog, RAW_LINE_CUSTOM_TYPE } from "./imported-log.js";

/**
 * What importing one session did: `created` (new in the store), `unchanged` (the same
 * source was imported before), `updated` (the source grew: the entries it gained were
 * added after the ones already there), or `diverged` (the stored session was continued in
 * Arbor since; left untouched, and `reason` says so). With `dryRun`, what it would do.
 */
export type StoreImportStatus = "created" | "unchanged" | "updated" | "diverged";

/** The outcome of {@link importIntoStore}. */
export interface StoreImportResult {
  id: string;
  status: StoreImportStatus;
  /** Entries the store gained (all of them when created, the new ones when updated). */
  added: number;
  /** Why a diverged session was left as it was. */
  reason?: string;
}

/** Options of {@link importIntoStore}. */
export interface StoreImportOptions {
  tenant?: string;
  /** Work out what would happen, write nothing. */
  dryRun?: boolean;
}

/** An imported session as the text of a session log (header, then entries). */
export function importedLogText(log: ImportedLog): string {
  const lines = [JSON.stringify(log.header)];
  for (const entry of log.entries) lines.push(JSON.stringify(entry));
  return `${lines.join("\n")}\n`;
}

/**
 * Stores an imported session under its deterministic id. Importing the same source again
 * changes nothing; importing a source that grew adds the entries it gained, keeping every
 * entry already stored (the session is rewritten whole, as `importLog` is the store's one
 * way to write given entries). A stored session that holds entries the source does not
 * (the conversation was continued in Arbor) is never overwritten.
 * @example
 * for (const log of await readClaudeCodeFile(file)) await importIntoStore(store, log);
 */
export async function importIntoStore(
  store: SessionStore,
  log: ImportedLog,
  options: StoreImportOptions = {},
): Promise<StoreImportResult> {
  const id = log.header.id;
  const tenant = options.tenant === undefined ? {} : { tenant: options.tenant };
  const stored = await storedEntries(store, id, options.tenant);
  if (stored === undefined) {
    if (!options.dryRun) await store.importLog(importedLogText(log), tenant);
    return { id, status: "created", added: log.entries.length };
  }
  const fresh = new Map(log.entries.map((e) => [e.id, JSON.stringify(e)]));
  const kept = stored.filter((e) => e.type !== "leaf");
  const extra = kept.filter((e) => !fresh.has(e.id) && !isTornLine(e));
  if (extra.length > 0) {
    return {
      id,
      status: "diverged",
      added: 0,
      reason: `the stored session has ${extra.length} entries the source does not (it was continued in Arbor); import it as a copy or delete the stored one first`,
    };
  }
  const same =
    kept.length === log.entries.length && kept.every((e) => fresh.get(e.id) === JSON.stringify(e));
  if (same) return { id, status: "unchanged", added: 0 };
  if (!options.dryRun) {
    await store.delete(id, tenant);
    await store.importLog(importedLogText(log), tenant);
  }
  const storedIds = new Set(kept.map((e) => e.id));
  const added = log.entries.filter((e) => !storedIds.has(e.id)).length;
  return { id, status: "updated", added };
}

/** A raw entry of a last line that was still being written when it was imported. */
function isTornLine(entry: SessionEntry): boolean {
  const custom = entry as { customType?: string; data?: { torn?: unknown } };
  return (
    entry.type === "custom" &&
    custom.customType === RAW_LINE_CUSTOM_TYPE &&
    custom.data?.torn === true
  );
}

async function storedEntries(
  store: SessionStore,
  id: string,
  tenant: string | undefined,
): Promise<SessionEntry[] | undefined> {
  let session: Awaited<ReturnType<SessionStore["open"]>>;
  try {
    session = await store.open(id, { readOnly: true, ...(tenant === undefined ? {} : { tenant }) });
  } catch (error) {
    if (SessionNotFoundError.isInstance(error)) return undefined;
    throw error;
  }
  try {
    return [...session.getEntries()];
  } finally {
    await session.close();
  }
}
