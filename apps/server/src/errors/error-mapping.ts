import {
  AgentBusyError,
  AgentClosedError,
  EntryNotFoundError as AgentEntryNotFoundError,
  InvalidHostOptionsError,
  InvalidPromptError,
  InvalidThinkingLevelError,
  MissingApiKeyError,
  UnknownProviderError,
} from "@arbor/orchestration";
import {
  EntryNotFoundError,
  InvalidEntryError,
  InvalidStoreQueryError,
  SessionIoError,
  SessionLockedError,
  SessionNotFoundError,
  SessionStoreError,
} from "@arbor/session-store";
import { DatabaseUnavailableError, isConnectionError } from "@arbor/session-store-postgres";
import { HTTPException } from "hono/http-exception";
import { ApiError } from "./api-error.js";

/**
 * Maps anything a route threw to the error the client sees. The one place where package
 * errors become statuses: a missing session is 404 whatever the tenant (so another tenant's
 * session looks missing), a held session 409, a bad query 400. Unknown errors are a 500
 * whose message never carries a stack or an internal detail.
 */
export function toApiError(error: unknown): ApiError {
  if (ApiError.isInstance(error)) return error;
  if (SessionNotFoundError.isInstance(error)) {
    return new ApiError(404, "not_found", `no session "${error.sessionId}"`);
  }
  if (SessionLockedError.isInstance(error)) {
    return new ApiError(
      409,
      "session_locked",
      "the session is being written by a run or another writer; try again when it ends",
    );
  }
  if (InvalidStoreQueryError.isInstance(error)) {
    return new ApiError(400, "invalid_request", error.message);
  }
  if (EntryNotFoundError.isInstance(error) || AgentEntryNotFoundError.isInstance(error)) {
    return new ApiError(404, "entry_not_found", error.message);
  }
  if (InvalidEntryError.isInstance(error)) {
    return new ApiError(400, "invalid_request", error.message);
  }
  if (isDiskFull(error)) {
    return new ApiError(
      507,
      "disk_full",
      "the server's disk is full; nothing of this request was kept, try again once space is freed",
    );
  }
  if (DatabaseUnavailableError.isInstance(error) || isConnectionError(error)) {
    return new ApiError(
      503,
      "store_unavailable",
      "the session database cannot be reached; try again shortly",
    );
  }
  if (SessionStoreError.isInstance(error) && error.code === "invalid_title") {
    return new ApiError(400, "invalid_request", error.message);
  }
  if (AgentBusyError.isInstance(error)) {
    return new ApiError(409, "session_busy", error.message);
  }
  if (AgentClosedError.isInstance(error)) {
    return new ApiError(409, "session_busy", "the agent of this session is closing; try again");
  }
  if (InvalidPromptError.isInstance(error) || InvalidThinkingLevelError.isInstance(error)) {
    return new ApiError(400, "invalid_request", error.message);
  }
  if (
    UnknownProviderError.isInstance(error) ||
    MissingApiKeyError.isInstance(error) ||
    InvalidHostOptionsError.isInstance(error)
  ) {
    // A server misconfiguration: the client cannot fix it, and keys must not leak.
    return new ApiError(500, "agent_unavailable", `the agent cannot run: ${error.code}`);
  }
  if (error instanceof HTTPException) {
    if (error.status === 413)
      return new ApiError(413, "body_too_large", "the request body is too large");
    if (error.status === 408 || error.status === 504) {
      return new ApiError(408, "request_timeout", "the request took too long");
    }
    return new ApiError(400, "invalid_request", "the request could not be read");
  }
  return new ApiError(500, "internal_error", "the server failed to answer; the failure was logged");
}

/** A full disk or quota, as the session store types it or as the system reported it. */
function isDiskFull(error: unknown): boolean {
  if (SessionIoError.isInstance(error)) return error.problem === "disk_full";
  const code = (error as { code?: unknown } | null)?.code;
  return code === "ENOSPC" || code === "EDQUOT";
}
