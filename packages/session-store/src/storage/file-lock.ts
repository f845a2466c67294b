import { open, readFile, rm } from "node:fs/promises";
import { hostname } from "node:os";
import { SessionLockedError } from "../errors.js";

/** Tells whether a process with this pid is alive on this machine. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Takes an exclusive, advisory writer lock beside a session file (`<file>.lock`, holding
 * the owner's pid and host). A lock whose process is gone is taken over.
 * @param sessionPath - named in the error
 * @returns a function that releases the lock
 * @throws SessionLockedError naming the holder's pid when a live process holds it
 */
export async function acquireFileLock(sessionPath: string): Promise<() => Promise<void>> {
  const lockPath = `${sessionPath}.lock`;
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const handle = await open(lockPath, "wx");
      await handle.writeFile(
        JSON.stringify({ pid: process.pid, host: hostname(), since: Date.now() }),
      );
      await handle.close();
      let released = false;
      return async () => {
        if (released) return;
        released = true;
        await rm(lockPath, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const holder = await readHolder(lockPath);
    if (holder === "vanished") continue;
    if (holder && holder.host === hostname() && !isAlive(holder.pid)) {
      await rm(lockPath, { force: true });
      continue;
    }
    if (holder) throw new SessionLockedError(sessionPath, holder.pid);
    // Unreadable: a writer between creating and filling the file, or debris of a crash
    // at that instant. Give a live writer a moment before calling it stale.
    await new Promise((resolve) => setTimeout(resolve, 20));
    if ((await readHolder(lockPath)) === undefined) await rm(lockPath, { force: true });
  }
  const holder = await readHolder(lockPath);
  throw new SessionLockedError(sessionPath, typeof holder === "object" ? holder.pid : -1);
}

async function readHolder(
  lockPath: string,
): Promise<{ pid: number; host: string } | "vanished" | undefined> {
  let text: string;
  try {
    text = await readFile(lockPath, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "vanished";
    throw error;
  }
  try {
    const value = JSON.parse(text) as { pid?: unknown; host?: unknown };
    if (typeof value.pid === "number" && typeof value.host === "string") {
      return { pid: value.pid, host: value.host };
    }
  } catch {
    // fall through: not (yet) a complete lock record
  }
  return undefined;
}
