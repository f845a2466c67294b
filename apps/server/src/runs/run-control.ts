import type { UiAnswer } from "../extensions/ui-answer.js";
import type { RunRecord } from "./run-record.js";
import type { StartRunRequest } from "./run-request.js";

/**
 * What the routes ask of runs, whoever executes them: {@link RunService} in one process
 * (file mode), or the PostgreSQL cluster, where any instance answers for any run.
 */
export interface RunControl {
  /** The agents clients may name. */
  readonly agentNames: string[];
  /** Starts a run, or queues it behind the session's run. */
  start(request: StartRunRequest): Promise<RunRecord>;
  /** The run's record, when the tenant owns it (404 otherwise). */
  get(runId: string, tenantId: string): Promise<RunRecord>;
  /** Holds a session for a change other than a run while `work` runs (409 when busy). */
  holding<T>(sessionId: string, tenantId: string, what: string, work: () => Promise<T>): Promise<T>;
  /** The tenant's session's active run, if any. */
  activeRunOf(sessionId: string, tenantId: string): Promise<string | undefined>;
  /** Asks a run to finish with a final turn; a queued one is cancelled. */
  stop(runId: string, tenantId: string): Promise<RunRecord>;
  /** Ends a run at once (partial answer kept); a queued one is cancelled. */
  abort(runId: string, tenantId: string): Promise<RunRecord>;
  /** Answers a UI request of a run's extension (404, 409 or 400 when it cannot be). */
  answerUi?(runId: string, requestId: string, answer: UiAnswer, tenantId: string): Promise<void>;
  /** Stops taking runs and ends the running ones. */
  close(): Promise<void>;
}
