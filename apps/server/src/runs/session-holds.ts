import { sessionHeld } from "../errors/index.js";

/** Sessions of this process held by a change other than a run (navigate, compact). */
export class SessionHolds {
  /** What holds each held session. */
  private readonly held = new Map<string, string>();

  /**
   * Refuses when a change holds the session.
   * @throws ApiError 409 `session_busy` naming what holds it
   */
  assertFree(sessionId: string): void {
    const what = this.held.get(sessionId);
    if (what !== undefined) throw sessionHeld(sessionId, what);
  }

  /**
   * Holds the session for `what` while `work` runs.
   * @throws ApiError 409 when another change holds it
   */
  async hold<T>(sessionId: string, what: string, work: () => Promise<T>): Promise<T> {
    this.assertFree(sessionId);
    this.held.set(sessionId, what);
    try {
      return await work();
    } finally {
      this.held.delete(sessionId);
    }
  }
}
