import { DuplicateEntryIdError, EntryNotFoundError } from "../errors/index.js";
import type { SessionEntry } from "../format/entries.js";
import type { SessionStore } from "../store/session-store.js";
import { SessionNotFoundError } from "../store/store-errors.js";
import { type ImportedLog, RAW_LINE_CUSTOM_TYPE } from "./imported-log.js";
import {
  importedLogText,
  removeSpareCopy,
  rewriteStoredSession,
  spareCopyId,
} from "./stored-rewrite.js";

/**
 * What importing one session did: `created` (new in the store), `unchanged` (the same
 * source was imported before), `updated` (the source grew: the entries it gained were
 * appended after the ones already there), or `diverged` (the stored session was continued in
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
  /** Entries at the end of the source not stored yet, being still open (see `holdBackOpen`). */
  heldBack?: number;
}

/** Options of {@link importIntoStore}. */
export interface StoreImportOptions {
  tenant?: string;
  /** Work out what would happen, write nothing. */
  dryRun?: boolean;
  /**
   * Leave out the entries at the end the source may still change (`openEntries`: the rest
   * of an answer still being written), to store them once they are complete. Following a
   * live log this way appends each time instead of rewriting the session.
   */
  holdBackOpen?: boolean;
}

export { importedLogText } from "./stored-rewrite.js";

/**
 * Stores an imported session under its deterministic id. Importing the same source again
 * changes nothing. When the source grew and the stored entries are the start of the
 * source's, only the new entries are appended (the stored bytes stay as they are, so
 * following a live log appends a few lines each time). A torn last line completed since,
 * or an entry the source changed (a split message that gained a part), needs the session
 * rewritten: that is done crash-safely (see {@link rewriteStoredSession}). A stored
 * session that holds entries the source does not (the conversation was continued in
 * Arbor) is never overwritten.
 * @example
 * for (const log of await readClaudeCodeFile(file)) await importIntoStore(store, log);
 */
export async function importIntoStore(
  store: SessionStore,
  source: ImportedLog,
  options: StoreImportOptions = {},
): Promise<StoreImportResult> {
  const id = source.header.id;
  const tenant = options.tenant;
  const stored = await storedEntries(store, id, tenant);
  const open = options.holdBackOpen ? Math.min(source.openEntries ?? 0, source.entries.length) : 0;
  // Open entries an earlier import stored (the source was quiet then) are not held back
  // again: the stored session keeps what it has, and gains what follows as usual.
  const openIds = new Set(source.entries.slice(source.entries.length - open).map((e) => e.id));
  const heldBack = open > 0 && !stored?.some((e) => openIds.has(e.id)) ? open : 0;
  const log = heldBack > 0 ? { ...source, entries: source.entries.slice(0, -heldBack) } : source;
  const result =
    stored === undefined
      ? await create(store, log, options)
      : await update(store, log, stored, options);
  return heldBack > 0 ? { ...result, heldBack } : result;
}

/** Brings a stored session up to the source's entries, or says why not. */
async function update(
  store: SessionStore,
  log: ImportedLog,
  stored: readonly SessionEntry[],
  options: StoreImportOptions,
): Promise<StoreImportResult> {
  const id = log.header.id;
  const tenant = options.tenant;
  const kept = stored.filter((e) => e.type !== "leaf");
  const diverged = divergence(kept, log);
  if (diverged) {
    // A spare copy left by a rewrite that died holds only what the source holds: the
    // session continued in Arbor is the one to keep.
    if (!options.dryRun) await removeSpareCopy(store, id, tenant);
    return { id, status: "diverged", added: 0, reason: diverged };
  }
  const storedIds = new Set(kept.map((e) => e.id));
  const added = log.entries.filter((e) => !storedIds.has(e.id)).length;
  const appendable = isPrefix(kept, log.entries);
  if (appendable && kept.length === log.entries.length) {
    if (!options.dryRun) await removeSpareCopy(store, id, tenant);
    return { id, status: "unchanged", added: 0 };
  }
  if (options.dryRun) return { id, status: "updated", added };
  if (!appendable || !(await appendNew(store, log, kept, tenant))) {
    await rewriteStoredSession(store, log, tenant);
  } else await removeSpareCopy(store, id, tenant);
  return { id, status: "updated", added };
}

/** Stores a session the store does not hold, or says why not. */
async function create(
  store: SessionStore,
  log: ImportedLog,
  options: StoreImportOptions,
): Promise<StoreImportResult> {
  const id = log.header.id;
  // A rewrite the process died in may have left only its spare copy.
  const spare = await storedEntries(store, spareCopyId(id), options.tenant);
  const diverged = spare && divergence(spare, log);
  if (diverged) {
    return {
      id,
      status: "diverged",
      added: 0,
      reason: `an interrupted rewrite left the session as "${spareCopyId(id)}", and ${diverged.replace(/^the stored session /, "it ")}`,
    };
  }
  if (options.dryRun) return { id, status: "created", added: log.entries.length };
  await store.importLog(
    importedLogText(log),
    options.tenant === undefined ? {} : { tenant: options.tenant },
  );
  if (spare) await removeSpareCopy(store, id, options.tenant);
  return { id, status: "created", added: log.entries.length };
}

/** Why the stored entries cannot be brought up to the source's, or undefined. */
function divergence(stored: readonly SessionEntry[], log: ImportedLog): string | undefined {
  const fresh = new Set(log.entries.map((e) => e.id));
  const extra = stored.filter((e) => e.type !== "leaf" && !fresh.has(e.id) && !isTornLine(e));
  if (extra.length === 0) return undefined;
  return `the stored session has ${extra.length} entries the source does not (it was continued in Arbor); import it as a copy or delete the stored one first`;
}

/** Whether the stored entries are the source's first ones, unchanged and in order. */
function isPrefix(stored: readonly SessionEntry[], entries: readonly SessionEntry[]): boolean {
  if (stored.length > entries.length) return false;
  return stored.every((e, i) => JSON.stringify(e) === JSON.stringify(entries[i]));
}

/**
 * Appends the entries after the stored ones to the session, opened for writing. Checks
 * again under the lock that the stored entries are the ones compared.
 * @returns false when the session changed since, or its shape refuses the append (nothing
 * was written then)
 */
async function appendNew(
  store: SessionStore,
  log: ImportedLog,
  kept: readonly SessionEntry[],
  tenant: string | undefined,
): Promise<boolean> {
  const session = await store.open(log.header.id, tenant === undefined ? {} : { tenant });
  try {
    const now = session.getEntries().filter((e) => e.type !== "leaf");
    if (now.length !== kept.length || !isPrefix(now, log.entries)) return false;
    await session.appendEntries(log.entries.slice(kept.length));
    return true;
  } catch (error) {
    if (DuplicateEntryIdError.isInstance(error) || EntryNotFoundError.isInstance(error))
      return false;
    throw error;
  } finally {
    await session.close();
  }
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
