import { readFileSync } from "node:fs";
import { hostname } from "node:os";

/**
 * Tells whether a process with this pid exists on this machine (it may be another program
 * that got the same pid: see {@link processStartTime}).
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * When a process started, as Linux counts it (`starttime`, clock ticks since boot, the
 * 22nd field of `/proc/<pid>/stat`). Two processes that share a pid one after the other
 * have different start times. Undefined where `/proc` is missing (other systems) or the
 * process is gone.
 */
export function processStartTime(pid: number): string | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces and parentheses.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const start = fields[19];
  return start && /^\d+$/.test(start) ? start : undefined;
}

let bootIdCache: string | null | undefined;

/** This boot of the machine (Linux `boot_id`); pids and start times restart with it. */
export function bootId(): string | undefined {
  if (bootIdCache === undefined) {
    try {
      bootIdCache = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim() || null;
    } catch {
      bootIdCache = null;
    }
  }
  return bootIdCache ?? undefined;
}

/** This process as a lock records it. */
export interface ProcessIdentity {
  pid: number;
  host: string;
  startTime?: string;
  bootId?: string;
}

/** The identity of the current process. */
export function currentProcess(): ProcessIdentity {
  const startTime = processStartTime(process.pid);
  const boot = bootId();
  return {
    pid: process.pid,
    host: hostname(),
    ...(startTime ? { startTime } : {}),
    ...(boot ? { bootId: boot } : {}),
  };
}

/**
 * Tells whether the process a lock names is still the one that took it: on this host, this
 * boot, alive, and (where the start time is known on both sides) started at the same time.
 * A pid that now belongs to another process is not the holder.
 */
export function holderIsRunning(holder: ProcessIdentity, since?: number): boolean {
  const boot = bootId();
  if (holder.bootId && boot && holder.bootId !== boot) return false;
  if (!isAlive(holder.pid)) return false;
  if (holder.startTime) {
    const now = processStartTime(holder.pid);
    if (now !== undefined && now !== holder.startTime) return false;
  } else if (since !== undefined) {
    // A lock without a start time (older versions, other tools): a process that started
    // after the lock was taken cannot be the one that took it.
    const started = processStartedAt(holder.pid);
    if (started !== undefined && started > since + START_TIME_SLACK_MS) return false;
  }
  return true;
}

/**
 * How much later than a lock's `since` a process may seem to have started and still be its
 * holder: the boot time is known to the second and start times to the clock tick.
 */
const START_TIME_SLACK_MS = 2_000;

/** Linux's clock ticks per second for `/proc/<pid>/stat` (USER_HZ, 100 on every Linux ABI). */
const TICKS_PER_SECOND = 100;

let bootTimeCache: number | null | undefined;

/** When this machine booted (epoch ms, from `btime` of `/proc/stat`), where known. */
function bootTimeMs(): number | undefined {
  if (bootTimeCache === undefined) {
    try {
      const match = /^btime (\d+)$/m.exec(readFileSync("/proc/stat", "utf8"));
      bootTimeCache = match ? Number(match[1]) * 1000 : null;
    } catch {
      bootTimeCache = null;
    }
  }
  return bootTimeCache ?? undefined;
}

/** When a process started (epoch ms), where `/proc` tells; undefined elsewhere. */
export function processStartedAt(pid: number): number | undefined {
  const ticks = processStartTime(pid);
  const boot = bootTimeMs();
  if (ticks === undefined || boot === undefined) return undefined;
  return boot + (Number(ticks) * 1000) / TICKS_PER_SECOND;
}
