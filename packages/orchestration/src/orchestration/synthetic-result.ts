import type { Session } from "@arbor/session-store";
import type { AgentFailure, AgentFailureReason } from "@arbor/turn-runner";
import { NO_USAGE } from "./usage-sum.js";

/** The run id of a result for an agent that never ran (aborted or refused before it started). */
export const NOT_RUN_ID = "not-run";

/** A failure result for an agent that did not run, in the turn runner's shape. */
export function notRunResult(
  reason: AgentFailureReason,
  message: string,
  session: Session,
): AgentFailure {
  return {
    success: false,
    reason,
    message,
    finalReport: { status: "failed", reason, message },
    runId: NOT_RUN_ID,
    turns: 0,
    usage: { ...NO_USAGE },
    cost: 0,
    session: { id: session.id, location: session.location },
    sessionFile: session.location,
  };
}
