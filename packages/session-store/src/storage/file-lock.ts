import { randomUUID } from "node:crypto";
import { link, open, rename, rm, stat, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { z } from "zod";
import { SessionLockedError } from "../errors/index.js";
import { safeParseJson } from "../format/json-line.js";
import { currentProcess, holderIsRunning } from "./process-identity.js";

export { isAlive } from "./process-identity.js";

/**
 * What to do with a lock whose holder is not running:
 * - `auto` (default): take over a lock of this host whose process is gone, whose pid now
 *   belongs to another process (a different start time) or that predates a reboot;
 * - `break`: also take over a lock from another host, and a lock file that is unreadable
 *   (use it when you know the other machine's process is gone);
 * - `never`: never take a lock over.
 * A lock held by a running process of this host is never taken over.
 */
export type StaleLockPolicy = "auto" | "break" | "never";

const lockRecordSchema = z.looseObject({
  pid: z.number().int(),
  host: z.string(),
  since: z.number().optional(),
  startTime: z.string().optional(),
  bootId: z.string().optional(),
});
type LockRecord = z.infer<typeof lockRecordSchema>;

type Inspection =
  | { kind: "vanished" }
  | { kind: "unreadable"; ino: number }
  | { kind: "record"; ino: number; record: LockRecord };

/** How many nested takeovers (of a takeover's own lock) are tried before giving up. */
const MAX_DEPTH = 3;
/** How long an unreadable lock file is given to be written, by an older writer. */
const UNREADABLE_GRACE_MS = 20;

/**
 * Takes an exclusive, advisory writer lock beside a session file (`<file>.lock`, holding
 * the owner's pid, host, process start time and boot id). The lock file is written whole
 * under another name and linked into place, so it is never seen half written. A stale lock
 * (see {@link StaleLockPolicy}) is taken over atomically: the processes that find the same
 * stale lock first race for a takeover lock named after it (`<file>.lock.break-<inode>`,
 * created exclusively); only its winner replaces the stale lock, by renaming a fresh lock
 * file over it, and only if it is still the same stale file.
 * @param sessionPath - the session file, named in errors
 * @returns a function that releases the lock
 * @throws SessionLockedError naming the lock file and its holder
 */
export async function acquireFileLock(
  sessionPath: string,
  policy: StaleLockPolicy = "auto",
): Promise<() => Promise<void>> {
  const lockPath = `${sessionPath}.lock`;
  const text = JSON.stringify({ ...currentProcess(), since: Date.now() });
  const owned = await acquire(sessionPath, lockPath, text, policy, 0);
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    // Only our own lock file is removed: one that replaced it (a takeover by `break`) stays.
    const now = await inspect(lockPath);
    if (now.kind !== "vanished" && now.ino === owned) await rm(lockPath, { force: true });
  };
}

/** @returns the inode of the lock file now held */
async function acquire(
  sessionPath: string,
  lockPath: string,
  text: string,
  policy: StaleLockPolicy,
  depth: number,
): Promise<number> {
  let last: Inspection = { kind: "vanished" };
  for (let attempt = 0; attempt < 8; attempt++) {
    const created = await createExclusive(lockPath, text);
    if (created !== undefined) return created;
    last = await inspect(lockPath);
    if (last.kind === "vanished") continue;
    if (last.kind === "unreadable") {
      await sleep(UNREADABLE_GRACE_MS);
      const again = await inspect(lockPath);
      if (again.kind !== "unreadable" || again.ino !== last.ino) continue;
    }
    const verdict = judge(last, policy);
    if (verdict !== "stale") throw lockedError(sessionPath, lockPath, last, verdict);
    if (depth >= MAX_DEPTH) throw lockedError(sessionPath, lockPath, last, "contended");
    const stale = last;
    const breaker = `${lockPath}.break-${stale.ino}`;
    let breakerIno: number;
    try {
      breakerIno = await acquire(sessionPath, breaker, text, "auto", depth + 1);
    } catch (error) {
      if (!SessionLockedError.isInstance(error)) throw error;
      // Another process is taking the same stale lock over: wait for it, then look again.
      await sleep(5 + Math.random() * 10);
      continue;
    }
    try {
      const now = await inspect(lockPath);
      if (now.kind !== "vanished" && now.ino === stale.ino && judge(now, policy) === "stale") {
        const candidate = await writeCandidate(lockPath, text);
        const candidateIno = (await stat(candidate)).ino;
        await rename(candidate, lockPath);
        const mine = await inspect(lockPath);
        if (mine.kind !== "vanished" && mine.ino === candidateIno) return candidateIno;
      }
    } finally {
      const now = await inspect(breaker);
      if (now.kind !== "vanished" && now.ino === breakerIno) await rm(breaker, { force: true });
    }
  }
  throw lockedError(sessionPath, lockPath, last, "contended");
}

function judge(
  inspection: Exclude<Inspection, { kind: "vanished" }>,
  policy: StaleLockPolicy,
): "stale" | "live" | "foreign_host" | "unreadable" {
  if (inspection.kind === "unreadable") return policy === "break" ? "stale" : "unreadable";
  const { record } = inspection;
  if (record.host !== hostname()) return policy === "break" ? "stale" : "foreign_host";
  if (policy === "never") return "live";
  const holder = {
    pid: record.pid,
    host: record.host,
    ...(record.startTime ? { startTime: record.startTime } : {}),
    ...(record.bootId ? { bootId: record.bootId } : {}),
  };
  return holderIsRunning(holder, record.since) ? "live" : "stale";
}

function lockedError(
  sessionPath: string,
  lockPath: string,
  inspection: Inspection,
  reason: "live" | "foreign_host" | "unreadable" | "contended",
): SessionLockedError {
  const record = inspection.kind === "record" ? inspection.record : undefined;
  return new SessionLockedError(sessionPath, record?.pid ?? -1, {
    lockPath,
    ...(record ? { host: record.host } : {}),
    reason,
  });
}

/** Creates the lock file whole, or returns undefined when one exists. */
async function createExclusive(lockPath: string, text: string): Promise<number | undefined> {
  const candidate = await writeCandidate(lockPath, text);
  try {
    await link(candidate, lockPath);
    return (await stat(lockPath)).ino;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return undefined;
    throw error;
  } finally {
    await rm(candidate, { force: true });
  }
}

async function writeCandidate(lockPath: string, text: string): Promise<string> {
  const candidate = `${lockPath}.new-${process.pid}-${randomUUID().slice(0, 8)}`;
  await writeFile(candidate, text, { flag: "wx" });
  return candidate;
}

async function inspect(lockPath: string): Promise<Inspection> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(lockPath, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { kind: "vanished" };
    throw error;
  }
  try {
    const { ino } = await handle.stat();
    const parsed = safeParseJson(await handle.readFile("utf8"));
    const record = parsed.ok ? lockRecordSchema.safeParse(parsed.value) : undefined;
    return record?.success
      ? { kind: "record", ino, record: record.data }
      : { kind: "unreadable", ino };
  } finally {
    await handle.close();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
