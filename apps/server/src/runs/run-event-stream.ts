import type { RunEventLog } from "./run-event-log.js";
import { isTerminal, type RunRecord } from "./run-record.js";
import type { ServerRunEvent } from "./server-run-event.js";

/** What a stream of a run's events yields: an event, a keep-alive, or the end. */
export type RunStreamItem =
  | { kind: "event"; event: ServerRunEvent }
  | { kind: "keep_alive" }
  | { kind: "resync"; record: RunRecord; missedFrom: number; missedThrough: number }
  | { kind: "end"; record: RunRecord };

/**
 * The events of a run after `afterSeq`, from the durable log: what was missed first, then
 * live ones as the log announces them, a keep-alive after each quiet `keepAliveMs`, and the
 * end once the run ended and every event was given. A cursor older than the log's retention
 * gets one `resync` item (the events it missed are gone), then the events still kept. Ends early when `signal` aborts.
 */
export async function* runEventStream(
  log: RunEventLog,
  runId: string,
  afterSeq: number,
  options: { keepAliveMs: number; signal: AbortSignal },
): AsyncGenerator<RunStreamItem> {
  let cursor = afterSeq;
  let changed = true;
  let wake: (() => void) | undefined;
  const stopWatching = log.watch(runId, () => {
    changed = true;
    wake?.();
  });
  const onAbort = () => wake?.();
  options.signal.addEventListener("abort", onAbort);
  try {
    while (!options.signal.aborted) {
      if (changed) {
        changed = false;
        // Read the record before the events: a terminal record means every event is stored.
        const record = await log.getRun(runId);
        const pruned = record?.eventsPrunedThrough ?? 0;
        if (record && pruned > cursor) {
          // The cursor is older than the retention: say so once, then go on from what is kept.
          yield { kind: "resync", record, missedFrom: cursor + 1, missedThrough: pruned };
          cursor = pruned;
        }
        for (;;) {
          const events = await log.readEvents(runId, cursor, 500);
          for (const event of events) {
            yield { kind: "event", event };
            cursor = event.seq;
          }
          if (events.length < 500) break;
        }
        if (!record || isTerminal(record.status)) {
          if (record) yield { kind: "end", record };
          return;
        }
        continue;
      }
      const quiet = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(true), options.keepAliveMs);
        wake = () => {
          clearTimeout(timer);
          resolve(false);
        };
        if (changed || options.signal.aborted) wake();
      });
      wake = undefined;
      if (quiet) yield { kind: "keep_alive" };
    }
  } finally {
    stopWatching();
    options.signal.removeEventListener("abort", onAbort);
  }
}
