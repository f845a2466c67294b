import type { RunEventLog } from "./run-event-log.js";
import type { RunRecord } from "./run-record.js";
import { RunWatchers } from "./run-watchers.js";
import type { ServerRunEvent } from "./server-run-event.js";

/** Runs and their events in memory: for tests and throwaway servers. */
export class MemoryRunEventLog implements RunEventLog {
  private readonly runs = new Map<string, { record: RunRecord; events: ServerRunEvent[] }>();
  private readonly watchers = new RunWatchers();

  /** {@inheritDoc RunEventLog.createRun} */
  async createRun(record: RunRecord): Promise<void> {
    if (this.runs.has(record.id)) throw new Error(`run ${record.id} exists`);
    this.runs.set(record.id, { record: structuredClone(record), events: [] });
  }
  /** {@inheritDoc RunEventLog.getRun} */
  async getRun(runId: string): Promise<RunRecord | undefined> {
    const run = this.runs.get(runId);
    return run ? structuredClone(run.record) : undefined;
  }
  /** {@inheritDoc RunEventLog.updateRun} */
  async updateRun(record: RunRecord): Promise<void> {
    const run = this.runs.get(record.id);
    if (!run) throw new Error(`no run ${record.id}`);
    run.record = structuredClone(record);
    this.watchers.notify(record.id);
  }
  /** {@inheritDoc RunEventLog.appendEvents} */
  async appendEvents(runId: string, events: readonly ServerRunEvent[]): Promise<void> {
    const run = this.runs.get(runId);
    if (!run) throw new Error(`no run ${runId}`);
    run.events.push(...events);
    this.watchers.notify(runId);
  }
  /** {@inheritDoc RunEventLog.readEvents} */
  async readEvents(runId: string, afterSeq: number, limit = 1000): Promise<ServerRunEvent[]> {
    const events = this.runs.get(runId)?.events ?? [];
    return eventsAfter(events, afterSeq, limit);
  }
  /** {@inheritDoc RunEventLog.watch} */
  watch(runId: string, listener: () => void): () => void {
    return this.watchers.watch(runId, listener);
  }
  /** {@inheritDoc RunEventLog.close} */
  async close(): Promise<void> {}
}

/** The events after `afterSeq` of a log ordered by `seq` (1, 2, 3, …). */
export function eventsAfter(
  events: readonly ServerRunEvent[],
  afterSeq: number,
  limit: number,
): ServerRunEvent[] {
  // Sequence numbers are dense from 1, so the index of seq n is n - 1; check and fall back.
  const start =
    events[afterSeq]?.seq === afterSeq + 1 ? afterSeq : events.findIndex((e) => e.seq > afterSeq);
  if (start < 0) return [];
  return events.slice(start, start + limit);
}
