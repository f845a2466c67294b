import { ApiError, runInProgress } from "../errors/index.js";
import type { UiAnswer } from "../extensions/ui-answer.js";
import type { AdmittedRun, RunAdmission, RunExecutor, RunSignal } from "./run-admission.js";
import type { RunEventLog } from "./run-event-log.js";
import type { RunRecord } from "./run-record.js";
import type { StartRunRequest } from "./run-request.js";
import { SessionHolds } from "./session-holds.js";

/** What a {@link LocalRunAdmission} works with. */
export interface LocalRunAdmissionOptions {
  /** Where runs are recorded (one process uses it at a time). */
  log: RunEventLog;
  /** Where runs go once their session is theirs. */
  executor: RunExecutor;
  /** Clock seam. */
  now: () => Date;
  /** Queued runs allowed per session and per tenant (default: no cap). */
  queueLimits?: QueueLimits;
}

/** How many runs may wait: per session, and per tenant across its sessions. */
export interface QueueLimits {
  perSession: number;
  perTenant: number;
}

/**
 * Admission in one process (file or memory store): the run holding each session and the
 * runs queued behind it live in memory; a queued run is handed to the executor when the one
 * before it ended. A run the log holds as queued or running that this process does not know
 * belonged to a process that stopped: it is recorded interrupted when read.
 */
export class LocalRunAdmission implements RunAdmission {
  /** The run holding each session: handed to the executor, not ended yet. */
  private readonly running = new Map<string, AdmittedRun>();
  /** Runs waiting for their session, in the order they start, by session. */
  private readonly queues = new Map<string, AdmittedRun[]>();
  /** Runs cancelled while queued, whose end is being written: still ours until then. */
  private readonly cancelling = new Map<string, Promise<void>>();
  private readonly holds = new SessionHolds();

  constructor(private readonly options: LocalRunAdmissionOptions) {}

  /** {@inheritDoc RunAdmission.admit} */
  async admit(record: RunRecord, request: StartRunRequest): Promise<RunRecord> {
    // From here to the first await, nothing else runs: the session is taken or the run is
    // queued in one step, so two requests at once never both start.
    this.holds.assertFree(request.sessionId);
    const busy = this.running.get(request.sessionId);
    if (busy && request.ifBusy === "reject") {
      throw runInProgress(request.sessionId, busy.record.id, "run");
    }
    // A run on a free session is recorded running from the start: one write of its record
    // before its prompt, not two.
    const admitted: RunRecord = busy
      ? { ...record, status: "queued" }
      : { ...record, status: "running", startedAt: record.createdAt };
    if (busy) this.assertQueueRoom(request.sessionId, record.tenantId);
    const recorded = this.options.log.createRun(admitted);
    const run: AdmittedRun = { record: admitted, request, recorded };
    // Handed over before the record is written, so the agent opens meanwhile.
    if (!busy) this.start(run);
    else {
      const queue = this.queues.get(request.sessionId) ?? [];
      if (request.ifBusy === "interrupt") {
        queue.unshift(run);
        this.options.executor.signal(busy.record.id, "abort");
      } else queue.push(run);
      this.queues.set(request.sessionId, queue);
    }
    try {
      await recorded;
    } catch (error) {
      // Not recorded: the queue place is given back (a started run gives its session back
      // when the executor gives up on it).
      this.dequeue(run);
      throw error;
    }
    return structuredClone(admitted);
  }

  /**
   * Refuses a run that would queue past a limit.
   * @throws ApiError 429 `queue_full`
   */
  private assertQueueRoom(sessionId: string, tenantId: string): void {
    const limits = this.options.queueLimits;
    if (!limits) return;
    const inSession = this.queues.get(sessionId)?.length ?? 0;
    if (inSession >= limits.perSession) {
      throw new ApiError(
        429,
        "queue_full",
        `session "${sessionId}" already has ${inSession} runs queued (limits.queuedRunsPerSession); wait for one to start`,
      );
    }
    let inTenant = 0;
    for (const queue of this.queues.values())
      for (const run of queue) if (run.record.tenantId === tenantId) inTenant++;
    if (inTenant >= limits.perTenant) {
      throw new ApiError(
        429,
        "queue_full",
        `this tenant already has ${inTenant} runs queued (limits.queuedRunsPerTenant); wait for some to start`,
      );
    }
  }

  /** {@inheritDoc RunAdmission.knows} */
  knows(runId: string): boolean {
    return this.cancelling.has(runId) || this.queuedRun(runId) !== undefined;
  }

  /** {@inheritDoc RunAdmission.orphan} */
  async orphan(record: RunRecord): Promise<RunRecord> {
    // The file log serves one process at a time: the process that had the run stopped.
    // Record what happened, so its streams end and it never hangs.
    const interrupted: RunRecord = {
      ...record,
      status: "interrupted",
      endedAt: this.options.now().toISOString(),
      error: {
        code: "interrupted",
        message: "the server running this run stopped before it ended",
      },
    };
    await this.options.log.updateRun(interrupted);
    return interrupted;
  }

  /** {@inheritDoc RunAdmission.cancel} */
  async cancel(runId: string, why: string): Promise<RunRecord | undefined> {
    const run = this.queuedRun(runId);
    if (!run) return undefined;
    this.dequeue(run);
    const cancelled: RunRecord = {
      ...run.record,
      status: "cancelled",
      endedAt: this.options.now().toISOString(),
      error: { code: "cancelled", message: why },
    };
    // Kept as ours until the log says cancelled, so a read in between never sees an orphan.
    const written = Promise.resolve(run.recorded)
      .then(() => this.options.log.updateRun(cancelled))
      .catch(() => undefined)
      .finally(() => this.cancelling.delete(runId));
    this.cancelling.set(runId, written);
    return structuredClone(cancelled);
  }

  /** {@inheritDoc RunAdmission.relay} */
  async relay(_runId: string, _what: RunSignal): Promise<boolean> {
    return false;
  }

  /** {@inheritDoc RunAdmission.relayAnswer} */
  async relayAnswer(_runId: string, _requestId: string, _answer: UiAnswer): Promise<boolean> {
    return false;
  }

  /** {@inheritDoc RunAdmission.activeRunOf} */
  async activeRunOf(sessionId: string, tenantId: string): Promise<string | undefined> {
    return this.runningOf(sessionId, tenantId);
  }

  /** {@inheritDoc RunAdmission.holding} */
  holding<T>(
    sessionId: string,
    tenantId: string,
    what: string,
    work: () => Promise<T>,
  ): Promise<T> {
    const runId = this.runningOf(sessionId, tenantId);
    if (runId !== undefined) return Promise.reject(runInProgress(sessionId, runId, "change"));
    return this.holds.hold(sessionId, what, work);
  }

  /** {@inheritDoc RunAdmission.quiesce} */
  async quiesce(): Promise<void> {
    // All in one step: a run ending meanwhile finds its queue empty.
    const queued = [...this.queues.values()].flat();
    await Promise.all(queued.map((run) => this.cancel(run.record.id, "the server shut down")));
  }

  /** {@inheritDoc RunAdmission.close} */
  async close(): Promise<void> {
    while (this.cancelling.size > 0) await Promise.all([...this.cancelling.values()]);
  }

  private runningOf(sessionId: string, tenantId: string): string | undefined {
    const run = this.running.get(sessionId);
    return run?.record.tenantId === tenantId ? run.record.id : undefined;
  }

  private queuedRun(runId: string): AdmittedRun | undefined {
    for (const queue of this.queues.values()) {
      const run = queue.find((queued) => queued.record.id === runId);
      if (run) return run;
    }
    return undefined;
  }

  private dequeue(run: AdmittedRun): void {
    const { sessionId } = run.record;
    const queue = this.queues.get(sessionId);
    const at = queue?.indexOf(run) ?? -1;
    if (!queue || at < 0) return;
    queue.splice(at, 1);
    if (queue.length === 0) this.queues.delete(sessionId);
  }

  /** Gives the session to a run until it ended, then to the next one queued. */
  private start(run: AdmittedRun): void {
    const { sessionId } = run.record;
    this.running.set(sessionId, run);
    this.options.executor
      .execute(run)
      .catch(() => undefined)
      .finally(() => {
        if (this.running.get(sessionId) === run) this.running.delete(sessionId);
        const queue = this.queues.get(sessionId);
        const following = queue?.shift();
        if (queue && queue.length === 0) this.queues.delete(sessionId);
        if (following) this.start(following);
      });
  }
}
