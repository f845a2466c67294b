import { randomBytes } from "node:crypto";
import type { HostRun, OrchestrationResult } from "@arbor/orchestration";
import {
  type AgentDefinition,
  AgentHost,
  type AgentHostOptions,
  type AgentNode,
} from "@arbor/orchestration";
import { SessionLockedError, type SessionStore } from "@arbor/session-store";
import { ApiError, runInProgress, sessionHeld, toApiError } from "../errors/index.js";
import { driveRun, type RunExtensions } from "../extensions/run-extensions.js";
import type { ServerExtensions } from "../extensions/server-extensions.js";
import type { UiAnswer } from "../extensions/ui-answer.js";
import { assertSessionExists } from "./assert-session.js";
import type { RunControl } from "./run-control.js";
import type { RunEventLog } from "./run-event-log.js";
import { isTerminal, type RunRecord, type RunStatus } from "./run-record.js";
import type { StartRunRequest } from "./run-request.js";
import type { ServerRunEvent } from "./server-run-event.js";

export type { IfBusy, StartRunRequest } from "./run-request.js";

/** What a {@link RunService} works with. */
export interface RunServiceOptions {
  store: SessionStore;
  log: RunEventLog;
  agents: ReadonlyMap<string, AgentDefinition | AgentNode>;
  /** Provider settings, or a function from a target to a model (tests). */
  models: AgentHostOptions["models"];
  /** The longest prompt, in characters. */
  maxPromptChars?: number;
  /** Clock seam. */
  now?: () => Date;
  /** The agents' extensions: each run loads its agent's, with a UI answered over HTTP. */
  extensions?: ServerExtensions;
  /**
   * How long opening a run's session is retried while another writer holds it (a run of an
   * instance that died, whose session lease has not expired yet). Default 0: no retry.
   */
  openRetryMs?: number;
}

/** A run of this process: queued or executing. */
interface Execution {
  record: RunRecord;
  request: StartRunRequest;
  run?: HostRun;
  stopAsked: boolean;
  abortAsked: boolean;
  /** Resolves once the log recorded the run. */
  created: Promise<void>;
  /**
   * The run's agent, opening since the run was admitted on a free session: it opens while
   * the run is recorded instead of after.
   */
  opening?: Promise<OpenedRun>;
}

/** A run's agent, opened: its host and the extensions loaded for it. */
interface OpenedRun {
  host: AgentHost;
  extensions: RunExtensions | undefined;
}

/** A new run id. */
function newRunId(): string {
  return `run_${randomBytes(12).toString("hex")}`;
}

function statusOf(result: OrchestrationResult): RunStatus {
  if (result.success) return "completed";
  if (result.reason === "aborted") return "aborted";
  if (result.reason === "shutdown") return "interrupted";
  return "failed";
}

/**
 * Starts and controls runs: one at a time per session (`ifBusy` decides about a second),
 * each in an {@link AgentHost} opened for it and closed after it; every event goes to the
 * {@link RunEventLog} before anyone is told. A client that goes away does not stop a run.
 */
export class RunService implements RunControl {
  /** The run executing on each session in this process. */
  private readonly active = new Map<string, Execution>();
  /** Runs waiting for their session, by session. */
  private readonly queues = new Map<string, Execution[]>();
  private readonly executions = new Map<string, Execution>();
  /** Sessions held by a change other than a run (navigate, compact), with what it is. */
  private readonly held = new Map<string, string>();
  private readonly finished = new Set<Promise<unknown>>();
  private closing = false;
  private readonly now: () => Date;
  private readonly maxPromptChars: number;

  constructor(private readonly options: RunServiceOptions) {
    this.now = options.now ?? (() => new Date());
    this.maxPromptChars = options.maxPromptChars ?? Number.POSITIVE_INFINITY;
  }

  /** The agents clients may name. */
  get agentNames(): string[] {
    return [...this.options.agents.keys()];
  }

  /**
   * Starts a run, or queues it behind the session's run.
   * @throws ApiError 404 for an unknown agent or a session the tenant does not have, 409 when busy and `ifBusy` is `reject`
   */
  async start(request: StartRunRequest): Promise<RunRecord> {
    this.checkRequest(request);
    await assertSessionExists(this.options.store, request.sessionId, request.tenantId);
    return this.admit(request);
  }

  /**
   * Checks what a run request asks for before anything is stored.
   * @throws ApiError 503 while shutting down, 404 for an unknown agent, 400 for a prompt too long
   */
  checkRequest(request: StartRunRequest): void {
    if (this.closing)
      throw new ApiError(
        503,
        "shutting_down",
        "the server is shutting down; start the run again on another instance",
      );
    if (!this.options.agents.has(request.agent)) {
      throw new ApiError(
        404,
        "agent_not_found",
        `no agent "${request.agent}"; agents: ${this.agentNames.join(", ") || "(none)"}`,
      );
    }
    if (request.prompt.length > this.maxPromptChars) {
      throw new ApiError(
        400,
        "prompt_too_long",
        `the prompt is over ${this.maxPromptChars} characters`,
      );
    }
  }

  private async admit(request: StartRunRequest): Promise<RunRecord> {
    // From here to the first await, nothing else runs: the session is taken or the run is
    // queued in one step, so two requests at once never both start.
    const held = this.held.get(request.sessionId);
    if (held !== undefined) {
      throw sessionHeld(request.sessionId, held);
    }
    const busy = this.active.get(request.sessionId);
    if (busy && request.ifBusy === "reject") {
      throw runInProgress(request.sessionId, busy.record.id, "run");
    }
    const createdAt = this.now().toISOString();
    // A run on a free session is recorded running from the start: one write of its record
    // before its prompt, not two.
    const record: RunRecord = {
      id: newRunId(),
      sessionId: request.sessionId,
      tenantId: request.tenantId,
      agent: request.agent,
      ...(busy ? { status: "queued" } : { status: "running", startedAt: createdAt }),
      createdAt,
      lastSeq: 0,
    };
    const execution: Execution = {
      record,
      request,
      stopAsked: false,
      abortAsked: false,
      created: Promise.resolve(),
    };
    // The agent starts opening first, so recording the run overlaps the reads of the session.
    if (!busy) {
      execution.opening = this.openRun(execution);
      // Awaited by the run once it is recorded: a failure before then waits there, and is
      // never an unhandled rejection (which would end the process).
      execution.opening.catch(() => undefined);
    }
    const created = this.options.log.createRun(record);
    execution.created = created;
    this.executions.set(record.id, execution);
    if (!busy) this.active.set(request.sessionId, execution);
    else {
      const queue = this.queues.get(request.sessionId) ?? [];
      if (request.ifBusy === "interrupt") {
        queue.unshift(execution);
        busy.abortAsked = true;
        this.abortRun(busy);
      } else queue.push(execution);
      this.queues.set(request.sessionId, queue);
    }
    try {
      await created;
    } catch (error) {
      // Not recorded: give the session (or the queue place) back.
      this.discard(execution);
      this.executions.delete(record.id);
      if (this.active.get(request.sessionId) === execution) {
        this.active.delete(request.sessionId);
        this.next(request.sessionId);
      }
      const queue = this.queues.get(request.sessionId);
      const at = queue?.indexOf(execution) ?? -1;
      if (queue && at >= 0) queue.splice(at, 1);
      throw error;
    }
    if (!busy) this.begin(execution);
    return structuredClone(record);
  }

  /**
   * The run's record, when the tenant owns it.
   * @throws ApiError 404 otherwise (another tenant's run looks missing)
   */
  async get(runId: string, tenantId: string): Promise<RunRecord> {
    // Asked before the record is read: a run of ours that ends meanwhile has its end stored
    // before it stops being ours, so the record read after is the end, never taken for an
    // orphan (and wrongly recorded as interrupted).
    const executing = this.executions.has(runId);
    const record = await this.options.log.getRun(runId);
    if (!record || record.tenantId !== tenantId)
      throw new ApiError(404, "run_not_found", `no run "${runId}"`);
    if (isTerminal(record.status) || executing) return record;
    // Queued or running, yet not ours: the process that had it stopped (the file log serves
    // one process at a time). Record what happened, so its streams end and it never hangs.
    const interrupted: RunRecord = {
      ...record,
      status: "interrupted",
      endedAt: this.now().toISOString(),
      error: {
        code: "interrupted",
        message: "the server running this run stopped before it ended",
      },
    };
    await this.options.log.updateRun(interrupted);
    return interrupted;
  }

  /**
   * Holds a session for a change other than a run (navigate, compact) while `work` runs: runs
   * and other changes asked for meanwhile get 409.
   * @throws ApiError 409 when a run or another change holds the session
   */
  async holding<T>(
    sessionId: string,
    tenantId: string,
    what: string,
    work: () => Promise<T>,
  ): Promise<T> {
    const runId = this.localRunOf(sessionId, tenantId);
    if (runId !== undefined) {
      throw runInProgress(sessionId, runId, "change");
    }
    const held = this.held.get(sessionId);
    if (held !== undefined) {
      throw sessionHeld(sessionId, held);
    }
    this.held.set(sessionId, what);
    try {
      return await work();
    } finally {
      this.held.delete(sessionId);
    }
  }

  /** The tenant's session's run executing in this process, if any. */
  async activeRunOf(sessionId: string, tenantId: string): Promise<string | undefined> {
    return this.localRunOf(sessionId, tenantId);
  }

  private localRunOf(sessionId: string, tenantId: string): string | undefined {
    const execution = this.active.get(sessionId);
    return execution?.record.tenantId === tenantId ? execution.record.id : undefined;
  }

  /** Asks a run to finish with a final turn; a queued one is cancelled. */
  async stop(runId: string, tenantId: string): Promise<RunRecord> {
    const record = await this.get(runId, tenantId);
    const execution = this.executions.get(runId);
    if (!execution || isTerminal(record.status)) return record;
    if (this.cancelQueued(execution, "stopped before it started"))
      return structuredClone(execution.record);
    execution.stopAsked = true;
    this.options.extensions?.cancel(runId);
    // stop() needs the agent; a run still opening takes the flag when its prompt starts.
    if (execution.run) this.hostOf(execution)?.stop();
    return structuredClone(execution.record);
  }

  /**
   * Answers a UI request an extension of the run made (`ctx.ui.select/confirm/input`).
   * @throws ApiError 404 for a run the tenant does not have or a request the run never made,
   *   409 for a request already answered, timed out or cancelled, 400 for an answer of the
   *   wrong kind or an option not offered
   */
  async answerUi(
    runId: string,
    requestId: string,
    answer: UiAnswer,
    tenantId: string,
  ): Promise<void> {
    await this.get(runId, tenantId);
    if (!this.options.extensions) {
      throw new ApiError(404, "ui_request_not_found", `no UI request "${requestId}" in this run`);
    }
    this.options.extensions.answer(runId, requestId, answer);
  }

  /** Ends a run at once (its partial answer is kept, marked aborted); a queued one is cancelled. */
  async abort(runId: string, tenantId: string): Promise<RunRecord> {
    const record = await this.get(runId, tenantId);
    const execution = this.executions.get(runId);
    if (!execution || isTerminal(record.status)) return record;
    if (this.cancelQueued(execution, "aborted before it started"))
      return structuredClone(execution.record);
    execution.abortAsked = true;
    this.abortRun(execution);
    return structuredClone(execution.record);
  }

  /**
   * Executes a run admitted elsewhere (the PostgreSQL run table) in this process; its
   * record is already stored. Stop and abort reach it through {@link RunService.signal}.
   * @returns a promise settled once the run ended and was recorded
   */
  adopt(record: RunRecord, request: StartRunRequest): Promise<void> {
    const execution: Execution = {
      record: structuredClone(record),
      request,
      stopAsked: false,
      abortAsked: false,
      created: Promise.resolve(),
    };
    this.executions.set(record.id, execution);
    return this.begin(execution);
  }

  /** Whether a run executes (or waits) in this process. */
  executesHere(runId: string): boolean {
    return this.executions.has(runId);
  }

  /** How many runs execute in this process. */
  get executing(): number {
    return this.active.size;
  }

  /**
   * Stops or aborts a run executing in this process (asked on any instance).
   * @returns false when the run does not execute here
   */
  signal(runId: string, what: "stop" | "abort"): boolean {
    const execution = this.executions.get(runId);
    if (!execution) return false;
    if (what === "abort") {
      execution.abortAsked = true;
      this.abortRun(execution);
    } else {
      execution.stopAsked = true;
      this.options.extensions?.cancel(runId);
      if (execution.run) this.hostOf(execution)?.stop();
    }
    return true;
  }

  /** Stops taking runs; no new run is admitted from now on. */
  stopAdmitting(): void {
    this.closing = true;
  }

  /**
   * Stops taking runs, lets the running ones finish for up to `graceMs`, then aborts the
   * rest (recorded as interrupted) and waits for them to be recorded.
   */
  async close(options: { graceMs?: number } = {}): Promise<void> {
    this.closing = true;
    const graceMs = options.graceMs ?? 0;
    if (graceMs > 0 && this.finished.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
      });
      await Promise.race([waited, Promise.all([...this.finished])]);
      clearTimeout(timer);
    }
    for (const queue of this.queues.values()) {
      for (const execution of [...queue]) this.cancelQueued(execution, "the server shut down");
    }
    for (const execution of this.active.values()) {
      execution.abortAsked = true;
      this.abortRun(execution);
    }
    while (this.finished.size > 0) await Promise.all([...this.finished]);
  }

  private readonly hosts = new Map<string, AgentHost>();

  private hostOf(execution: Execution): AgentHost | undefined {
    return this.hosts.get(execution.record.id);
  }

  private abortRun(execution: Execution): void {
    this.options.extensions?.cancel(execution.record.id);
    this.hostOf(execution)?.abort();
  }

  private cancelQueued(execution: Execution, why: string): boolean {
    const queue = this.queues.get(execution.record.sessionId);
    const at = queue?.indexOf(execution) ?? -1;
    if (!queue || at < 0) return false;
    queue.splice(at, 1);
    execution.record = {
      ...execution.record,
      status: "cancelled",
      endedAt: this.now().toISOString(),
      error: { code: "cancelled", message: why },
    };
    const cancelled = execution.record;
    // Kept as ours until the log says cancelled, so a read in between never sees an orphan.
    this.track(
      execution.created
        .then(() => this.options.log.updateRun(cancelled))
        .finally(() => this.executions.delete(cancelled.id)),
    );
    return true;
  }

  private track(work: Promise<unknown>): void {
    const settled = work.catch(() => undefined).finally(() => this.finished.delete(settled));
    this.finished.add(settled);
  }

  private begin(execution: Execution): Promise<void> {
    this.active.set(execution.record.sessionId, execution);
    const ended = this.execute(execution).finally(() => {
      this.executions.delete(execution.record.id);
      if (this.active.get(execution.record.sessionId) === execution)
        this.active.delete(execution.record.sessionId);
      this.next(execution.record.sessionId);
    });
    this.track(ended);
    return ended;
  }

  private next(sessionId: string): void {
    const queue = this.queues.get(sessionId);
    const following = queue?.shift();
    if (queue && queue.length === 0) this.queues.delete(sessionId);
    if (following) this.begin(following);
  }

  private async execute(execution: Execution): Promise<void> {
    const { request } = execution;
    const log = this.options.log;
    try {
      await execution.created;
      if (execution.record.status !== "running") {
        execution.record = {
          ...execution.record,
          status: "running",
          startedAt: this.now().toISOString(),
        };
        await log.updateRun(execution.record);
      }
    } catch (error) {
      this.discard(execution);
      throw error;
    }
    let opened: OpenedRun | undefined;
    try {
      opened = await (execution.opening ?? this.openRun(execution));
      const { host, extensions } = opened;
      this.hosts.set(execution.record.id, host);
      const run = await driveRun(host, request, extensions, {
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
            : this.closing && !result.success
              ? "interrupted"
              : statusOf(result),
        endedAt: this.now().toISOString(),
        ...(result ? { result } : {}),
      };
    } catch (error) {
      // A write refused (the log lost the run's lease): the run must not go on unrecorded.
      opened?.host.abort();
      const failure = toApiError(error);
      execution.record = {
        ...execution.record,
        status: "failed",
        endedAt: this.now().toISOString(),
        error: { code: failure.code, message: failure.message },
      };
    } finally {
      this.hosts.delete(execution.record.id);
      if (opened) await closeRun(opened, this.options.extensions, execution.record.id);
    }
    await log.updateRun(execution.record);
  }

  /** Closes what the run's opening opened (whenever it finishes): the run will not go on. */
  private discard(execution: Execution): void {
    void execution.opening?.then(
      (opened) => closeRun(opened, this.options.extensions, execution.record.id),
      () => undefined,
    );
  }

  /**
   * Opens a run's agent: its extensions, then its host on the session.
   * @throws what loading the extensions or opening the session threw (nothing is left open)
   */
  private async openRun(execution: Execution): Promise<OpenedRun> {
    const { request } = execution;
    const runId = execution.record.id;
    const definition = this.options.agents.get(request.agent) as AgentDefinition | AgentNode;
    const extensions = await this.options.extensions?.openRun(runId, request.agent);
    try {
      const host = await this.openHost(() =>
        AgentHost.open({
          store: this.options.store,
          sessionId: request.sessionId,
          tenant: request.tenantId,
          agent: definition,
          models: this.options.models,
          agentOptions: { generateRunId: () => runId },
          ...extensions?.hostOptions,
        }),
      );
      return { host, extensions };
    } catch (error) {
      if (extensions) this.options.extensions?.closeRun(runId);
      throw error;
    }
  }

  /** Opens a run's host, retrying for `openRetryMs` while another writer holds the session. */
  private async openHost(open: () => Promise<AgentHost>): Promise<AgentHost> {
    const until = Date.now() + (this.options.openRetryMs ?? 0);
    for (;;) {
      try {
        return await open();
      } catch (error) {
        if (!SessionLockedError.isInstance(error) || Date.now() >= until) throw error;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
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

/** Closes a run's host and its extensions. */
async function closeRun(
  opened: OpenedRun,
  extensions: ServerExtensions | undefined,
  runId: string,
): Promise<void> {
  await opened.host.close().catch(() => undefined);
  if (opened.extensions) extensions?.closeRun(runId);
}
