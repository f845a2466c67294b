import type { AgentHost, HostRun, OrchestrationResult } from "@arbor/orchestration";
import { ApiError, toApiError } from "../errors/index.js";
import { driveRun } from "../extensions/run-extensions.js";
import type { UiAnswer } from "../extensions/ui-answer.js";
import { closeRun, type OpenedRun, type OpenRunDeps, openRun } from "./open-run.js";
import type { AdmittedRun, RunExecutor, RunSignal } from "./run-admission.js";
import type { RunEventLog } from "./run-event-log.js";
import type { RunRecord, RunStatus } from "./run-record.js";
import type { StartRunRequest } from "./run-request.js";
import type { ServerRunEvent } from "./server-run-event.js";

/** What a {@link RunExecution} works with. */
export interface RunExecutionOptions extends OpenRunDeps {
  /** Where each run's events and end are recorded. */
  log: RunEventLog;
  /** Clock seam. */
  now: () => Date;
}

/** A run executing in this process. */
interface Execution {
  record: RunRecord;
  request: StartRunRequest;
  /** The agent, opening since the run was handed over (while its start is recorded). */
  opening: Promise<OpenedRun>;
  /** The agent's host, once open and until the run ended. */
  host?: AgentHost;
  run?: HostRun;
  stopAsked: boolean;
  abortAsked: boolean;
}

function statusOf(result: OrchestrationResult): RunStatus {
  if (result.success) return "completed";
  if (result.reason === "aborted") return "aborted";
  if (result.reason === "shutdown") return "interrupted";
  return "failed";
}

/**
 * Executes admitted runs in this process: each in an {@link AgentHost} opened for it and
 * closed after it; every event goes to the {@link RunEventLog} before anyone is told. Stop
 * and abort reach a run however far it got. A client that goes away does not stop a run.
 */
export class RunExecution implements RunExecutor {
  /** The runs executing here, by id. */
  private readonly runs = new Map<string, Execution>();
  /** Every run executing here, settled once its end is recorded. */
  private readonly finished = new Set<Promise<unknown>>();
  private shuttingDown = false;

  constructor(private readonly options: RunExecutionOptions) {}

  /** Whether the process is shutting down: a run that fails from now on was interrupted. */
  get closing(): boolean {
    return this.shuttingDown;
  }

  /** {@inheritDoc RunExecutor.executing} */
  get executing(): number {
    return this.runs.size;
  }

  /** Whether a run executes in this process. */
  executesHere(runId: string): boolean {
    return this.runs.has(runId);
  }

  /** {@inheritDoc RunExecutor.execute} */
  execute({ record, request, recorded }: AdmittedRun): Promise<void> {
    const runId = record.id;
    const opening = openRun(this.options, runId, request);
    // Awaited by the run once it is recorded: a failure before then waits there, and is
    // never an unhandled rejection (which would end the process).
    opening.catch(() => undefined);
    const execution: Execution = {
      record: structuredClone(record),
      request,
      opening,
      stopAsked: false,
      abortAsked: false,
    };
    this.runs.set(runId, execution);
    const ended = this.run(execution, recorded).finally(() => this.runs.delete(runId));
    const settled = ended.catch(() => undefined).finally(() => this.finished.delete(settled));
    this.finished.add(settled);
    return ended;
  }

  /** {@inheritDoc RunExecutor.signal} */
  signal(runId: string, what: RunSignal): boolean {
    return this.control(runId, what) !== undefined;
  }

  /**
   * Stops or aborts a run executing here.
   * @returns the run's record as it is here, or undefined when it does not execute here
   */
  control(runId: string, what: RunSignal): RunRecord | undefined {
    const execution = this.runs.get(runId);
    if (!execution) return undefined;
    this.options.extensions?.cancel(runId);
    if (what === "abort") {
      execution.abortAsked = true;
      execution.host?.abort();
    } else {
      execution.stopAsked = true;
      // stop() needs the agent; a run still opening takes the flag when its prompt starts.
      if (execution.run) execution.host?.stop();
    }
    return structuredClone(execution.record);
  }

  /** {@inheritDoc RunExecutor.answer} */
  answer(runId: string, requestId: string, answer: UiAnswer): void {
    if (!this.options.extensions) {
      throw new ApiError(404, "ui_request_not_found", `no UI request "${requestId}" in this run`);
    }
    this.options.extensions.answer(runId, requestId, answer);
  }

  /** Marks the process shutting down: runs that fail from now on were interrupted. */
  shutDown(): void {
    this.shuttingDown = true;
  }

  /**
   * Lets the runs finish for up to `graceMs`, then aborts the rest (recorded as interrupted)
   * and waits for every end to be recorded.
   */
  async close(options: { graceMs?: number } = {}): Promise<void> {
    this.shutDown();
    const graceMs = options.graceMs ?? 0;
    if (graceMs > 0 && this.finished.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
      });
      await Promise.race([waited, Promise.all([...this.finished])]);
      clearTimeout(timer);
    }
    for (const runId of this.runs.keys()) this.signal(runId, "abort");
    while (this.finished.size > 0) await Promise.all([...this.finished]);
  }

  private async run(execution: Execution, recorded: Promise<void> | undefined): Promise<void> {
    const { log, extensions } = this.options;
    const runId = execution.record.id;
    try {
      await recorded;
      if (execution.record.status !== "running") {
        execution.record = {
          ...execution.record,
          status: "running",
          startedAt: this.options.now().toISOString(),
        };
        await log.updateRun(execution.record);
      }
    } catch (error) {
      // The run will not go on: what its opening opens is closed whenever it finishes.
      void execution.opening.then(
        (opened) => closeRun(opened, extensions, runId),
        () => undefined,
      );
      throw error;
    }
    let opened: OpenedRun | undefined;
    try {
      opened = await execution.opening;
      const { host } = opened;
      execution.host = host;
      const run = await driveRun(host, execution.request, opened.extensions, {
        record: (events) => this.record(execution, events),
        started: (run) => {
          execution.run = run;
          if (execution.abortAsked) host.abort();
          else if (execution.stopAsked) host.stop();
        },
      });
      const result = await run?.result;
      execution.record = {
        ...execution.record,
        // A run the server cut while shutting down was interrupted, not aborted by a client;
        // a command that asked for no prompt completed without a result.
        status:
          result === undefined
            ? "completed"
            : this.shuttingDown && !result.success
              ? "interrupted"
              : statusOf(result),
        endedAt: this.options.now().toISOString(),
        ...(result ? { result } : {}),
      };
    } catch (error) {
      // A write refused (the log lost the run's lease): the run must not go on unrecorded.
      opened?.host.abort();
      const failure = toApiError(error);
      execution.record = {
        ...execution.record,
        status: "failed",
        endedAt: this.options.now().toISOString(),
        error: { code: failure.code, message: failure.message },
      };
    } finally {
      execution.host = undefined;
      if (opened) await closeRun(opened, extensions, runId);
    }
    await log.updateRun(execution.record);
  }

  /** Copies the run's events to the log as they come; appends batch while one is written. */
  private async record(execution: Execution, events: AsyncIterable<ServerRunEvent>): Promise<void> {
    const log = this.options.log;
    let pending: ServerRunEvent[] = [];
    let writing: Promise<void> | undefined;
    // The first write that failed: the run stops (its host is aborted by the caller) rather
    // than go on with events nobody can read back; never left as an unhandled rejection.
    let failure: { error: unknown } | undefined;
    const flush = async (): Promise<void> => {
      try {
        while (pending.length > 0 && !failure) {
          const batch = pending;
          pending = [];
          await log.appendEvents(execution.record.id, batch);
          execution.record.lastSeq = batch.at(-1)?.seq ?? execution.record.lastSeq;
        }
      } catch (error) {
        failure ??= { error };
      } finally {
        // Cleared in the same turn the loop saw no event left, so the next event starts a flush.
        writing = undefined;
      }
    };
    for await (const event of events) {
      if (failure) break;
      pending.push(event);
      writing ??= flush();
    }
    await writing;
    await flush();
    if (failure) throw failure.error;
  }
}
