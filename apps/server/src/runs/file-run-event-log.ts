import { closeSync, fsync, open as openCallback, writeSync } from "node:fs";
import { appendFile, open, readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { writeAtomically } from "../auth/file-api-key-store.js";
import { eventsAfter } from "./memory-run-event-log.js";
import type { RunEventLog } from "./run-event-log.js";
import { isTerminal, type RunRecord, runIdSchema, runRecordSchema } from "./run-record.js";
import { RunWatchers } from "./run-watchers.js";
import type { ServerRunEvent } from "./server-run-event.js";

/**
 * What a stored event must have to be replayed: the envelope only. The fields of each event
 * type are the turn runner's, and a log written by an older version replays unchanged.
 */
const storedEventSchema = z.looseObject({
  runId: z.string(),
  seq: z.number().int().positive(),
  type: z.string(),
});

/** A run this process writes: its record and events are served from memory until it ends. */
interface LiveRun {
  record: RunRecord;
  events: ServerRunEvent[];
  /** `events.jsonl`, open for appending while the run lives; undefined once it ended. */
  fd: number | undefined;
}

/**
 * Runs under a folder: `<runId>/run.json` (the record, replaced atomically) and
 * `<runId>/events.jsonl` (one event per line, appended, synced when the run ends). A line
 * torn by a crash is skipped when read. Runs this process is executing are also kept in
 * memory, so live readers do not re-read the file.
 *
 * While a run lives, its events are written with synchronous calls on a descriptor kept
 * open: a few hundred bytes into the page cache take microseconds, where a trip through
 * libuv's thread pool (open, write, close each) took 0.5–5 ms on a busy loop and held every
 * event back from its readers that long. Its record is written through the thread pool,
 * which overlaps the opening of the run's agent (a run on a free session is recorded once,
 * already running). When a run was recorded twice (created, then marked running), the same
 * calls made synchronously held the loop for 1.6–2.4 ms before the agent could go on (first
 * event +6.1 ms against +3.8 ms added, medians of six paired runs); for the one write left,
 * three paired runs each way showed no difference. Nothing is synced until the run ends, so
 * a crash of the process loses nothing written, and a power loss loses a run that had not
 * ended (the server then answers 404 for it; its session keeps what it stored).
 */
export class FileRunEventLog implements RunEventLog {
  private readonly live = new Map<string, LiveRun>();
  private readonly watchers = new RunWatchers();

  /** @param dir - the folder of runs (created when missing) */
  constructor(readonly dir: string) {}

  /** {@inheritDoc RunEventLog.createRun} */
  async createRun(record: RunRecord): Promise<void> {
    const folder = this.folderOf(record.id);
    // Makes the run's folder too.
    await writeAtomically(join(folder, "run.json"), JSON.stringify(record), { sync: false });
    const fd = await openDescriptor(join(folder, "events.jsonl"));
    this.live.set(record.id, { record: structuredClone(record), events: [], fd });
  }

  /** {@inheritDoc RunEventLog.getRun} */
  async getRun(runId: string): Promise<RunRecord | undefined> {
    const live = this.live.get(runId);
    if (live) return structuredClone(live.record);
    if (!runIdSchema.safeParse(runId).success) return undefined;
    let text: string;
    try {
      text = await readFile(join(this.folderOf(runId), "run.json"), "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
    return runRecordSchema.parse(JSON.parse(text));
  }

  /** {@inheritDoc RunEventLog.updateRun} */
  async updateRun(record: RunRecord): Promise<void> {
    const live = this.live.get(record.id);
    const folder = this.folderOf(record.id);
    if (!isTerminal(record.status)) {
      // Not synced: a crash before the end leaves the run "running", which is what it was.
      if (live) live.record = structuredClone(record);
      await writeAtomically(join(folder, "run.json"), JSON.stringify(record), { sync: false });
      this.watchers.notify(record.id);
      return;
    }
    // The end: the events reach the disk before the record that counts them. Readers get the
    // end from memory meanwhile, never the "running" still on disk.
    if (live?.fd !== undefined) {
      const fd = live.fd;
      live.fd = undefined;
      live.record = structuredClone(record);
      try {
        await syncDescriptor(fd);
      } finally {
        closeSync(fd);
      }
    } else await syncFile(join(folder, "events.jsonl"));
    try {
      await writeAtomically(join(folder, "run.json"), JSON.stringify(record), { sync: true });
    } finally {
      this.live.delete(record.id);
    }
    this.watchers.notify(record.id);
  }

  /** {@inheritDoc RunEventLog.appendEvents} */
  async appendEvents(runId: string, events: readonly ServerRunEvent[]): Promise<void> {
    if (events.length === 0) return;
    const live = this.live.get(runId);
    const text = `${events.map((event) => JSON.stringify(event)).join("\n")}\n`;
    if (!live) {
      await appendFile(join(this.folderOf(runId), "events.jsonl"), text);
      this.watchers.notify(runId);
      return;
    }
    if (live.fd === undefined) throw new Error(`run ${runId} has ended; it takes no more events`);
    writeWhole(live.fd, text);
    live.events.push(...events);
    live.record.lastSeq = events.at(-1)?.seq ?? live.record.lastSeq;
    this.watchers.notify(runId);
  }

  /** {@inheritDoc RunEventLog.readEvents} */
  async readEvents(runId: string, afterSeq: number, limit = 1000): Promise<ServerRunEvent[]> {
    const live = this.live.get(runId);
    if (live) return eventsAfter(live.events, afterSeq, limit);
    if (!runIdSchema.safeParse(runId).success) return [];
    let text: string;
    try {
      text = await readFile(join(this.folderOf(runId), "events.jsonl"), "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    }
    const events: ServerRunEvent[] = [];
    for (const line of text.split("\n")) {
      if (!line) continue;
      let raw: unknown;
      try {
        raw = JSON.parse(line);
      } catch {
        continue; // a line torn by a crash
      }
      const parsed = storedEventSchema.safeParse(raw);
      // The event as written (same key order as it was sent live), once its envelope checks.
      if (parsed.success && parsed.data.seq > afterSeq) events.push(raw as ServerRunEvent);
      if (events.length >= limit) break;
    }
    return events;
  }

  /** {@inheritDoc RunEventLog.watch} */
  watch(runId: string, listener: () => void): () => void {
    return this.watchers.watch(runId, listener);
  }

  /** {@inheritDoc RunEventLog.close} */
  async close(): Promise<void> {
    for (const run of this.live.values()) if (run.fd !== undefined) closeSync(run.fd);
    this.live.clear();
  }

  private folderOf(runId: string): string {
    // Run ids are checked before they reach a path: never a separator or a dot.
    if (!runIdSchema.safeParse(runId).success)
      throw new Error(`not a run id: ${JSON.stringify(runId)}`);
    return join(this.dir, runId);
  }
}

/** Writes all of `text` at the end of the file open as `fd`. */
function writeWhole(fd: number, text: string): void {
  const bytes = Buffer.from(text, "utf8");
  let at = 0;
  while (at < bytes.length) at += writeSync(fd, bytes, at);
}

/** Opens a file for appending (made when missing, owner only) as a plain descriptor. */
function openDescriptor(path: string): Promise<number> {
  return new Promise((resolve, reject) =>
    openCallback(path, "a", 0o600, (error, fd) => (error ? reject(error) : resolve(fd))),
  );
}

/** Syncs an open file to the disk. */
function syncDescriptor(fd: number): Promise<void> {
  return new Promise((resolve, reject) =>
    fsync(fd, (error) => (error ? reject(error) : resolve())),
  );
}

async function syncFile(path: string): Promise<void> {
  const handle = await open(path, "a").catch(() => undefined);
  if (!handle) return;
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
