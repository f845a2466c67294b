import { SessionNotFoundError, type SessionStore } from "@arbor/session-store";

/**
 * Checks that the tenant has the session a run is asked for, without reading the session
 * (a long session took as long to check as to open, on every run started on it).
 * @throws SessionNotFoundError (404) when the tenant has no such session
 */
export async function assertSessionExists(
  store: SessionStore,
  sessionId: string,
  tenantId: string,
): Promise<void> {
  if (!(await store.has(sessionId, { tenant: tenantId }))) {
    throw new SessionNotFoundError(sessionId, tenantId);
  }
}
