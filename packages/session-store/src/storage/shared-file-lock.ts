import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { SessionLockedError } from "../errors/index.js";
import { acquireFileLock } from "./file-lock.js";

/** How long a change to a shared file waits for another writer by default. */
export const DEFAULT_SHARED_FILE_WAIT_MS = 15_000;

/** How a caller waits for the lock of a shared file. */
export interface SharedFileLockOptions {
  /** How long to wait for another writer before giving up (default 15 s). */
  waitMs?: number;
}

/** The changes of this process queued per file, so they wait for each other without polling. */
const queued = new Map<string, Promise<unknown>>();

/**
 * Runs a read-modify-write of a file that several processes share (API keys, trust,
 * approvals, listing indexes) under a cross-process lock (`<file>.lock`, the same lock
 * file format as a session's, so a lock left by a dead process is taken over). Inside
 * `change`, read the file afresh, then write it (whole, by rename); no other process that
 * uses this function changes the file in between, so no change is lost.
 * @param path - the shared file
 * @param change - reads, changes and writes the file
 * @returns what `change` returns
 * @throws SessionLockedError when another writer held the lock for longer than `waitMs`
 * @example
 * await withSharedFileLock(file, async () => {
 *   const book = await readBook(file);
 *   await writeBook(file, addKey(book));
 * });
 */
export function withSharedFileLock<T>(
  path: string,
  change: () => Promise<T>,
  options: SharedFileLockOptions = {},
): Promise<T> {
  const before = queued.get(path) ?? Promise.resolve();
  const run = before.then(() => lockedChange(path, change, options.waitMs));
  const settled = run.catch(() => undefined);
  queued.set(path, settled);
  void settled.then(() => {
    if (queued.get(path) === settled) queued.delete(path);
  });
  return run;
}

async function lockedChange<T>(
  path: string,
  change: () => Promise<T>,
  waitMs = DEFAULT_SHARED_FILE_WAIT_MS,
): Promise<T> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const deadline = Date.now() + waitMs;
  let pause = 1;
  for (;;) {
    let release: () => Promise<void>;
    try {
      release = await acquireFileLock(path, "auto");
    } catch (error) {
      const waiting = SessionLockedError.isInstance(error) && error.reason !== "foreign_host";
      if (!waiting || Date.now() >= deadline) throw error;
      // Another process holds it: look again soon, a little later each time (at most 25 ms).
      await new Promise((resolve) => setTimeout(resolve, pause * (0.5 + Math.random())));
      pause = Math.min(25, pause * 2);
      continue;
    }
    try {
      return await change();
    } finally {
      await release();
    }
  }
}
