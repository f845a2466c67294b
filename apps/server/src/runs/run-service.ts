import { randomBytes } from "node:crypto";
import type { AgentDefinition, AgentHostOptions, AgentNode } from "@arbor/orchestration";
import type { SessionStore } from "@arbor/session-store";
import { ApiError } from "../errors/index.js";
import type { ServerExtensions } from "../extensions/server-extensions.js";
import type { UiAnswer } from "../extensions/ui-answer.js";
import { assertSessionExists } from "./assert-session.js";
import type { QueueLimits } from "./local-run-admission.js";
import { LocalRunAdmission } from "./local-run-admission.js";
import type { RunAdmission, RunSignal } from "./run-admission.js";
import type { RunControl } from "./run-control.js";
import type { RunEventLog } from "./run-event-log.js";
import { RunExecution } from "./run-execution.js";
import { isTerminal, type RunRecord } from "./run-record.js";
import type { StartRunRequest } from "./run-request.js";

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
  /** Queued runs allowed per session and per tenant (default: no cap). */
  queueLimits?: QueueLimits;
  /**
   * How long opening a run's session is retried while another writer holds it (a run of an
   * instance that died, whose session lease has not expired yet). Default 0: no retry.
   */
  openRetryMs?: number;
}

/**
 * The parts a {@link RunService} composes when they are not the one-process ones (a
 * cluster's admission over PostgreSQL).
 */
export interface RunServiceParts {
  /** Executes runs in this process; the admission hands runs to it. */
  execution: RunExecution;
  /** Decides which runs start and when (made with `execution` as its executor). */
  admission: RunAdmission;
  /** How long running runs may finish on close before they are interrupted. Default 0. */
  graceMs?: number;
}

/** A new run id. */
function newRunId(): string {
  return `run_${randomBytes(12).toString("hex")}`;
}

/**
 * Starts and controls runs: an admission decides which run holds each session (one at a
 * time; `ifBusy` decides about a second) and hands it to the execution, which runs it in an
 * `AgentHost` opened for it and records its events before anyone is told. Without parts it
 * composes the one-process ones ({@link LocalRunAdmission} and {@link RunExecution}).
 * @example
 * const runs = new RunService({ store, log, agents, models });
 * const record = await runs.start({ tenantId, sessionId, agent: "helper", prompt: "Hi", ifBusy: "reject" });
 */
export class RunService implements RunControl {
  private readonly execution: RunExecution;
  private readonly admission: RunAdmission;
  private readonly graceMs: number;
  private readonly now: () => Date;
  private readonly maxPromptChars: number;
  private closed: Promise<void> | undefined;

  constructor(
    private readonly options: RunServiceOptions,
    parts?: RunServiceParts,
  ) {
    this.now = options.now ?? (() => new Date());
    this.maxPromptChars = options.maxPromptChars ?? Number.POSITIVE_INFINITY;
    this.execution =
      parts?.execution ??
      new RunExecution({
        store: options.store,
        log: options.log,
        agents: options.agents,
        models: options.models,
        extensions: options.extensions,
        openRetryMs: options.openRetryMs,
        now: this.now,
      });
    this.admission =
      parts?.admission ??
      new LocalRunAdmission({
        log: options.log,
        executor: this.execution,
        now: this.now,
        ...(options.queueLimits ? { queueLimits: options.queueLimits } : {}),
      });
    this.graceMs = parts?.graceMs ?? 0;
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
    return this.admission.admit(
      {
        id: newRunId(),
        sessionId: request.sessionId,
        tenantId: request.tenantId,
        agent: request.agent,
        status: "queued",
        createdAt: this.now().toISOString(),
        lastSeq: 0,
      },
      request,
    );
  }

  /**
   * Checks what a run request asks for before anything is stored.
   * @throws ApiError 503 while shutting down, 404 for an unknown agent, 400 for a prompt too long
   */
  checkRequest(request: StartRunRequest): void {
    if (this.execution.closing)
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

  /**
   * The run's record, when the tenant owns it.
   * @throws ApiError 404 otherwise (another tenant's run looks missing)
   */
  async get(runId: string, tenantId: string): Promise<RunRecord> {
    // Asked before the record is read: a run of ours that ends meanwhile has its end stored
    // before it stops being ours, so the record read after is the end, never taken for an
    // orphan (and wrongly recorded as interrupted).
    const ours = this.executesHere(runId);
    const record = await this.options.log.getRun(runId);
    if (!record || record.tenantId !== tenantId)
      throw new ApiError(404, "run_not_found", `no run "${runId}"`);
    if (isTerminal(record.status) || ours) return record;
    return this.admission.orphan(record);
  }

  /**
   * Holds a session for a change other than a run (navigate, compact) while `work` runs: runs
   * and other changes asked for meanwhile get 409.
   * @throws ApiError 409 when a run or another change holds the session
   */
  holding<T>(
    sessionId: string,
    tenantId: string,
    what: string,
    work: () => Promise<T>,
  ): Promise<T> {
    return this.admission.holding(sessionId, tenantId, what, work);
  }

  /** The tenant's session's run that holds it, if any. */
  activeRunOf(sessionId: string, tenantId: string): Promise<string | undefined> {
    return this.admission.activeRunOf(sessionId, tenantId);
  }

  /** Asks a run to finish with a final turn; a queued one is cancelled. */
  stop(runId: string, tenantId: string): Promise<RunRecord> {
    return this.control(runId, tenantId, "stop");
  }

  /** Ends a run at once (its partial answer is kept, marked aborted); a queued one is cancelled. */
  abort(runId: string, tenantId: string): Promise<RunRecord> {
    return this.control(runId, tenantId, "abort");
  }

  /**
   * Answers a UI request an extension of the run made (`ctx.ui.select/confirm/input`); an
   * answer for a run executing on another instance is relayed to it.
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
    const record = await this.get(runId, tenantId);
    const elsewhere = record.status === "running" && !this.execution.executesHere(runId);
    if (elsewhere && (await this.admission.relayAnswer(runId, requestId, answer))) return;
    this.execution.answer(runId, requestId, answer);
  }

  /** Whether a run executes (or waits) in this process. */
  executesHere(runId: string): boolean {
    return this.execution.executesHere(runId) || this.admission.knows(runId);
  }

  /** How many runs execute in this process. */
  get executing(): number {
    return this.execution.executing;
  }

  /**
   * Stops or aborts a run executing in this process.
   * @returns false when the run does not execute here
   */
  signal(runId: string, what: RunSignal): boolean {
    return this.execution.signal(runId, what);
  }

  /** Stops taking runs; no new run is admitted from now on. */
  stopAdmitting(): void {
    this.execution.shutDown();
  }

  /**
   * Stops taking runs, lets the running ones finish for up to `graceMs` (the parts' grace by
   * default), then aborts the rest (recorded as interrupted) and waits for them to be
   * recorded. Runs still queued in this process are cancelled; a cluster's stay queued for
   * the other instances.
   */
  close(options: { graceMs?: number } = {}): Promise<void> {
    this.closed ??= (async () => {
      this.execution.shutDown();
      await this.admission.quiesce();
      await this.execution.close({ graceMs: options.graceMs ?? this.graceMs });
      await this.admission.close();
    })();
    return this.closed;
  }

  private async control(runId: string, tenantId: string, what: RunSignal): Promise<RunRecord> {
    const record = await this.get(runId, tenantId);
    if (isTerminal(record.status)) return record;
    const here = this.execution.control(runId, what);
    if (here) return here;
    const why = what === "stop" ? "stopped before it started" : "aborted before it started";
    const cancelled = await this.admission.cancel(runId, why);
    if (cancelled) return cancelled;
    if (await this.admission.relay(runId, what)) return this.get(runId, tenantId);
    return record;
  }
}
