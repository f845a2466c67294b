import { closeSync, openSync, readSync, statSync } from "node:fs";
import { readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { z } from "zod";
import { safeParseJson } from "./format/json-line.js";
import { withSharedFileLock } from "./storage/shared-file-lock.js";

/** The name of the listing index kept in each session directory. */
export const SESSION_INDEX_FILE = ".arbor-index.json";

/** What a listing knows about one session file, as folded from its lines. */
export const listingStateSchema = z.object({
  id: z.string(),
  cwd: z.string(),
  created: z.string(),
  parentSession: z.string().optional(),
  name: z.string().optional(),
  messageCount: z.number().int().nonnegative(),
  firstUserMessage: z.string().optional(),
  /**
   * When the session was last active (epoch ms; null when it has no user or assistant
   * message), by pi's rule: see `activityTimeOf`. Required, so records written before it
   * existed fail the schema and the index is rebuilt.
   */
  lastActivity: z.number().nullable(),
});
/** What a listing knows about one session file. */
export type ListingState = z.infer<typeof listingStateSchema>;

const indexRecordSchema = z.object({
  size: z.number().nonnegative(),
  mtimeMs: z.number(),
  /** The last bytes before `size` (base64), to tell an append from a rewrite. */
  tail: z.string(),
  state: listingStateSchema,
});
/** The index's record of one file: the state of its first `size` bytes. */
export type IndexRecord = z.infer<typeof indexRecordSchema>;

const indexSchema = z.object({
  version: z.literal(1),
  files: z.record(z.string(), indexRecordSchema),
});

/** A session directory's listing index: records by file name. */
export interface SessionIndex {
  files: Map<string, IndexRecord>;
}

/** How many bytes of a file's end a record keeps. */
export const TAIL_BYTES = 64;
/** An index larger than this is not read (a listing rebuilds it): a hostile file could be huge. */
const MAX_INDEX_BYTES = 64 * 1024 * 1024;

/**
 * Reads a directory's index. A missing, unreadable, oversized or malformed index reads as
 * empty: the index is a cache, and every record is checked against its file before use.
 */
export async function readIndex(dir: string): Promise<SessionIndex> {
  const path = join(dir, SESSION_INDEX_FILE);
  try {
    const stats = await stat(path);
    if (!stats.isFile() || stats.size > MAX_INDEX_BYTES) return emptyIndex();
    const parsed = safeParseJson(await readFile(path, "utf8"));
    const index = parsed.ok ? indexSchema.safeParse(parsed.value) : undefined;
    // A Map, so a key such as "__proto__" is a name like any other.
    if (index?.success) return { files: new Map(Object.entries(index.data.files)) };
  } catch {
    // No index yet, or unreadable: an empty one is rebuilt by the next listing.
  }
  return emptyIndex();
}

export function emptyIndex(): SessionIndex {
  return { files: new Map() };
}

let tempCounter = 0;

/** How long an index change waits for another process's: the index is a cache, so not long. */
const INDEX_LOCK_WAIT_MS = 2_000;

/**
 * Writes a directory's index atomically: a temporary file renamed over the old one, so a
 * reader sees the old index or the new one, never a mix. Callers hold the index's lock
 * (see {@link changeIndex}). Failures (a read-only directory) are ignored: the listing
 * works without an index, only slower.
 */
async function writeIndex(dir: string, index: SessionIndex): Promise<void> {
  const path = join(dir, SESSION_INDEX_FILE);
  const temp = `${path}.tmp-${process.pid}-${++tempCounter}`;
  try {
    await writeFile(temp, JSON.stringify({ version: 1, files: Object.fromEntries(index.files) }));
    await rename(temp, path);
  } catch {
    await rm(temp, { force: true }).catch(() => undefined);
  }
}

/**
 * Reads, changes and writes a directory's index under its cross-process lock, so two
 * processes changing different records both keep theirs. `change` returns false to leave
 * the file as it is. Failures (a read-only directory, a lock held too long) are ignored.
 */
async function changeIndex(dir: string, change: (index: SessionIndex) => boolean): Promise<void> {
  await withSharedFileLock(
    join(dir, SESSION_INDEX_FILE),
    async () => {
      const index = await readIndex(dir);
      if (change(index)) await writeIndex(dir, index);
    },
    { waitMs: INDEX_LOCK_WAIT_MS },
  ).catch(() => undefined);
}

/**
 * Stores what a listing learned: its records replace those it started from, a record
 * another process changed meanwhile is kept, and records of files no longer in the
 * directory are dropped.
 * @param before - the index the listing read
 * @param after - the records the listing holds now, for every session file it saw
 * @param names - every `*.jsonl` name the directory held
 */
export async function mergeIndex(
  dir: string,
  before: SessionIndex,
  after: SessionIndex,
  names: ReadonlySet<string>,
): Promise<void> {
  await changeIndex(dir, (index) => {
    for (const name of [...index.files.keys()]) if (!names.has(name)) index.files.delete(name);
    for (const [name, record] of after.files) {
      const onDisk = index.files.get(name);
      const untouched = JSON.stringify(onDisk) === JSON.stringify(before.files.get(name));
      if (!onDisk || untouched) index.files.set(name, record);
    }
    return true;
  });
}

/**
 * Replaces (or, with `record` undefined, removes) one file's record: read, change, write,
 * under the index's lock.
 * @param sessionPath - the session file; its directory holds the index
 */
export async function updateIndexRecord(
  sessionPath: string,
  record: IndexRecord | undefined,
): Promise<void> {
  const name = basename(sessionPath);
  await changeIndex(dirname(sessionPath), (index) => {
    if (record) index.files.set(name, record);
    else if (!index.files.delete(name)) return false;
    return true;
  });
}

/**
 * The index record of a session file as it is now, for a state the caller folded from the
 * same bytes. Synchronous on purpose: the caller computes the state and calls this in the
 * same tick, so no append can land between the state and the size it is recorded with.
 * @returns undefined when the file is gone
 */
export function snapshotIndexRecord(
  sessionPath: string,
  state: ListingState,
): IndexRecord | undefined {
  let fd: number | undefined;
  try {
    const stats = statSync(sessionPath);
    fd = openSync(sessionPath, "r");
    const tailStart = Math.max(0, stats.size - TAIL_BYTES);
    const tail = Buffer.alloc(stats.size - tailStart);
    readSync(fd, tail, 0, tail.length, tailStart);
    return { size: stats.size, mtimeMs: stats.mtimeMs, tail: tail.toString("base64"), state };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
