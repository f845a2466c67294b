import type { UiAnswer } from "../extensions/ui-answer.js";
import type { RunRecord } from "./run-record.js";
import type { StartRunRequest } from "./run-request.js";

/** What a client asks of a run that executes: finish with a final turn, or end at once. */
export type RunSignal = "stop" | "abort";

/** A run admission lets start: its record as admitted and what it runs. */
export interface AdmittedRun {
  /** `running` when admission already recorded its start, else `queued` (execution records it). */
  record: RunRecord;
  request: StartRunRequest;
  /**
   * Settles once the run's record is stored, when that write is still under way (admission on
   * one process writes it while the agent opens); absent when it is stored already.
   */
  recorded?: Promise<void>;
}

/**
 * The execution part as admission sees it: where admitted runs go, and how a run executing
 * in this process is reached.
 */
export interface RunExecutor {
  /**
   * Executes an admitted run from now on.
   * @returns a promise settled once the run ended and its end was recorded; rejected when the
   *   run could not even be recorded as started
   */
  execute(run: AdmittedRun): Promise<void>;
  /**
   * Stops or aborts a run executing in this process.
   * @returns false when the run does not execute here
   */
  signal(runId: string, what: RunSignal): boolean;
  /**
   * Delivers an answer to a UI request an extension of a run executing here made.
   * @throws ApiError 404, 409 or 400 when it cannot be delivered
   */
  answer(runId: string, requestId: string, answer: UiAnswer): void;
  /** How many runs execute in this process. */
  readonly executing: number;
}

/**
 * Decides which runs start and when: one running run per session, a second one refused,
 * queued or put first (`ifBusy`), runs handed to a {@link RunExecutor} once their session is
 * theirs. One process keeps its queue in memory ({@link LocalRunAdmission}); a cluster keeps
 * it in PostgreSQL's `runs` table, where any instance claims what may start.
 */
export interface RunAdmission {
  /**
   * Admits a run: refused, queued, or started at once (handed to the executor).
   * @param record the new run, `queued`, with its id and creation time
   * @returns the record as stored (`running` when it started at once)
   * @throws ApiError 409 `session_busy` when the session is busy and `ifBusy` is `reject`, or a
   *   change other than a run holds it
   */
  admit(record: RunRecord, request: StartRunRequest): Promise<RunRecord>;
  /** Whether the run waits in this process (a queue in memory) or is being cancelled here. */
  knows(runId: string): boolean;
  /**
   * What a stored queued or running run that no part of this process holds is now: a run of
   * a process that stopped is recorded interrupted where nobody else can take it over.
   */
  orphan(record: RunRecord): Promise<RunRecord>;
  /**
   * Cancels a run still waiting for its session; it never starts.
   * @returns the cancelled record, or undefined when the run does not wait
   */
  cancel(runId: string, why: string): Promise<RunRecord | undefined>;
  /**
   * Asks whoever executes the run elsewhere (another instance) to stop or abort it.
   * @returns false when nothing but this process executes runs
   */
  relay(runId: string, what: RunSignal): Promise<boolean>;
  /**
   * Passes an answer to a UI request on to the instance executing the run.
   * @returns false when nothing but this process executes runs
   * @throws ApiError with the executing instance's verdict
   */
  relayAnswer(runId: string, requestId: string, answer: UiAnswer): Promise<boolean>;
  /** The tenant's session's run that holds it, if any. */
  activeRunOf(sessionId: string, tenantId: string): Promise<string | undefined>;
  /**
   * Holds a session for a change other than a run (navigate, compact) while `work` runs.
   * @throws ApiError 409 when a run or another change holds the session
   */
  holding<T>(sessionId: string, tenantId: string, what: string, work: () => Promise<T>): Promise<T>;
  /** Hands no more runs to this process's executor (queued runs here are cancelled). */
  quiesce(): Promise<void>;
  /** Ends what admission does in the background, once the executor is closed. */
  close(): Promise<void>;
}
