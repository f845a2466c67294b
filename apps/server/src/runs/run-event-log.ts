import type { RunRecord } from "./run-record.js";
import type { ServerRunEvent } from "./server-run-event.js";

/**
 * The durable record of runs: each run's state and every event it emitted, by `seq`. An
 * SSE client that reconnects with `Last-Event-ID` is replayed from here, also after the run
 * ended or the process that ran it went away. Events are stored before they are announced
 * to watchers, so a watcher that reads after a notification never misses one.
 */
export interface RunEventLog {
  /** Records a new run. */
  createRun(record: RunRecord): Promise<void>;
  /** The run, or undefined when there is none. */
  getRun(runId: string): Promise<RunRecord | undefined>;
  /** Replaces a run's record (status, result, lastSeq) and notifies its watchers. */
  updateRun(record: RunRecord): Promise<void>;
  /** Stores events of a run (in `seq` order, after the stored ones), then notifies its watchers. */
  appendEvents(runId: string, events: readonly ServerRunEvent[]): Promise<void>;
  /** The run's stored events after `afterSeq`, at most `limit` of them. */
  readEvents(runId: string, afterSeq: number, limit?: number): Promise<ServerRunEvent[]>;
  /** Calls `listener` after each change of the run; returns a function that stops it. */
  watch(runId: string, listener: () => void): () => void;
  /** Releases files and timers. */
  close(): Promise<void>;
}
