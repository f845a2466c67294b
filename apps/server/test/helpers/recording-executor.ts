import type { UiAnswer } from "../../src/extensions/ui-answer.js";
import type { AdmittedRun, RunExecutor, RunSignal } from "../../src/runs/run-admission.js";
import type { RunEventLog } from "../../src/runs/run-event-log.js";
import type { RunRecord, RunStatus } from "../../src/runs/run-record.js";

interface Executing {
  record: RunRecord;
  end: () => void;
  /** Set once the test ends it: its end is being recorded. */
  ending: boolean;
}

/**
 * An executor for admission tests: it records every run it is handed and every signal, keeps
 * each run going until the test ends it ({@link RecordingExecutor.finish}) or aborts it, and
 * writes the run's start and end to the log as the real execution does.
 */
export class RecordingExecutor implements RunExecutor {
  /** Ids of the runs handed over, in order. */
  readonly started: string[] = [];
  /** Signals asked, in order. */
  readonly signals: Array<{ runId: string; what: RunSignal }> = [];
  /** Answers delivered, in order. */
  readonly answers: Array<{ runId: string; requestId: string; answer: UiAnswer }> = [];
  /** The most runs of one session that executed at once. */
  maxPerSession = 0;
  private readonly runs = new Map<string, Executing>();

  constructor(private readonly log: RunEventLog) {}

  /** {@inheritDoc RunExecutor.executing} */
  get executing(): number {
    return this.runs.size;
  }

  /** {@inheritDoc RunExecutor.execute} */
  async execute({ record, recorded }: AdmittedRun): Promise<void> {
    this.started.push(record.id);
    let end: () => void = () => undefined;
    const ended = new Promise<void>((resolve) => {
      end = resolve;
    });
    const executing: Executing = { record: structuredClone(record), end, ending: false };
    this.runs.set(record.id, executing);
    // A run whose end is being recorded gives its session back, though it is still let go.
    const ofSession = [...this.runs.values()].filter(
      (run) => run.record.sessionId === record.sessionId && !run.ending,
    ).length;
    this.maxPerSession = Math.max(this.maxPerSession, ofSession);
    try {
      await recorded;
      if (executing.record.status !== "running") {
        executing.record = {
          ...executing.record,
          status: "running",
          startedAt: new Date().toISOString(),
        };
        await this.log.updateRun(executing.record);
      }
      await ended;
    } finally {
      this.runs.delete(record.id);
    }
  }

  /**
   * Ends a run executing here with `status`, recorded before the executor lets it go.
   * @throws when the run does not execute here
   */
  async finish(runId: string, status: RunStatus = "completed"): Promise<void> {
    const executing = this.runs.get(runId);
    if (!executing) throw new Error(`run ${runId} does not execute here`);
    // Its session is given back by the write of its end: a cluster may start the next run
    // before this process hears that the write is done.
    executing.ending = true;
    await this.log.updateRun({
      ...executing.record,
      status,
      endedAt: new Date().toISOString(),
    });
    executing.end();
  }

  /** Ends every run still executing here, completed. */
  async finishAll(): Promise<void> {
    for (const runId of [...this.runs.keys()]) await this.finish(runId).catch(() => undefined);
  }

  /** {@inheritDoc RunExecutor.signal} */
  signal(runId: string, what: RunSignal): boolean {
    if (!this.runs.has(runId)) return false;
    this.signals.push({ runId, what });
    // An aborted agent ends at once.
    if (what === "abort") void this.finish(runId, "aborted").catch(() => undefined);
    return true;
  }

  /** {@inheritDoc RunExecutor.answer} */
  answer(runId: string, requestId: string, answer: UiAnswer): void {
    this.answers.push({ runId, requestId, answer });
  }

  /** Whether a run executes here now. */
  has(runId: string): boolean {
    return this.runs.has(runId);
  }
}
