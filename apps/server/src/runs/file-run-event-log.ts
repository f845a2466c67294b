import { appendFile, mkdir, open, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { AgentEvent } from "@arbor/turn-runner";
import { z } from "zod";
import { writeAtomically } from "../auth/file-api-key-store.js";
import { eventsAfter } from "./memory-run-event-log.js";
import type { RunEventLog } from "./run-event-log.js";
import { isTerminal, type RunRecord, runIdSchema, runRecordSchema } from "./run-record.js";
import { RunWatchers } from "./run-watchers.js";

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
  events: AgentEvent[];
  /** The appends of this run, one after another. */
  writing: Promise<unknown>;
}

/**
 * Runs under a folder: `<runId>/run.json` (the record, replaced atomically) and
 * `<runId>/events.jsonl` (one event per line, appended, synced when the run ends). A line
 * torn by a crash is skipped when read. Runs this process is executing are also kept in
 * memory, so live readers do not re-read the file.
 */
export class FileRunEventLog implements RunEventLog {
  private readonly live = new Map<string, LiveRun>();
  private readonly watchers = new RunWatchers();

  /** @param dir - the folder of runs (created when missing) */
  constructor(readonly dir: string) {}

  /** {@inheritDoc RunEventLog.createRun} */
  async createRun(record: RunRecord): Promise<void> {
    const folder = this.folderOf(record.id);
    await mkdir(folder, { recursive: true, mode: 0o700 });
    await writeAtomically(join(folder, "run.json"), JSON.stringify(record));
    this.live.set(record.id, {
      record: structuredClone(record),
      events: [],
      writing: Promise.resolve(),
    });
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
    if (live) {
      // Wait for the events before the record that counts them.
      await live.writing;
      live.record = structuredClone(record);
    }
    const folder = this.folderOf(record.id);
    if (isTerminal(record.status)) await syncFile(join(folder, "events.jsonl"));
    // Only the end of a run is synced: a crash before it leaves the run "running", which is
    // what it was (its events up to the crash are in the log).
    await writeAtomically(join(folder, "run.json"), JSON.stringify(record), {
      sync: isTerminal(record.status),
    });
    if (live && isTerminal(record.status)) this.live.delete(record.id);
    this.watchers.notify(record.id);
  }

  /** {@inheritDoc RunEventLog.appendEvents} */
  async appendEvents(runId: string, events: readonly AgentEvent[]): Promise<void> {
    if (events.length === 0) return;
    const live = this.live.get(runId);
    const text = `${events.map((event) => JSON.stringify(event)).join("\n")}\n`;
    const path = join(this.folderOf(runId), "events.jsonl");
    if (!live) {
      await appendFile(path, text);
      this.watchers.notify(runId);
      return;
    }
    const written = live.writing.then(async () => {
      await appendFile(path, text);
      live.events.push(...events);
      live.record.lastSeq = events.at(-1)?.seq ?? live.record.lastSeq;
    });
    live.writing = written.catch(() => undefined);
    await written;
    this.watchers.notify(runId);
  }

  /** {@inheritDoc RunEventLog.readEvents} */
  async readEvents(runId: string, afterSeq: number, limit = 1000): Promise<AgentEvent[]> {
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
    const events: AgentEvent[] = [];
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
      if (parsed.success && parsed.data.seq > afterSeq) events.push(raw as AgentEvent);
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
    await Promise.all([...this.live.values()].map((run) => run.writing));
  }

  private folderOf(runId: string): string {
    // Run ids are checked before they reach a path: never a separator or a dot.
    if (!runIdSchema.safeParse(runId).success)
      throw new Error(`not a run id: ${JSON.stringify(runId)}`);
    return join(this.dir, runId);
  }
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
