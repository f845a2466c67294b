import { ApiError } from "./api-error.js";

/**
 * 409 `session_busy`: the session has a run in progress. `asked` says what the client asked
 * for, so the message says what to do: a new run may be enqueued or interrupt the current
 * one, any other change waits for it.
 */
export function runInProgress(sessionId: string, runId: string, asked: "run" | "change"): ApiError {
  const advice =
    asked === "run" ? 'stop it, or send ifBusy "enqueue" or "interrupt"' : "wait for it or stop it";
  return new ApiError(
    409,
    "session_busy",
    `session "${sessionId}" has a run in progress: ${runId}; ${advice}`,
  );
}

/** 409 `session_busy`: a change other than a run (navigate, compact) holds the session. */
export function sessionHeld(sessionId: string, what: string): ApiError {
  return new ApiError(
    409,
    "session_busy",
    `session "${sessionId}" is busy with ${what}; try again when it ends`,
  );
}
