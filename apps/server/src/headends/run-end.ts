import { SessionLockedError } from "@arbor/session-store";
import type { AppDeps } from "../app-deps.js";
import { isTerminal, type RunRecord } from "../runs/run-record.js";

/** Resolves with a run's record once it ended (watching the log, as its streams do). */
export function whenRunEnds(deps: AppDeps, runId: string): Promise<RunRecord | undefined> {
  return new Promise((resolve) => {
    let checking = false;
    let again = false;
    const check = async () => {
      if (checking) {
        again = true;
        return;
      }
      checking = true;
      try {
        do {
          again = false;
          const record = await deps.log.getRun(runId);
          if (!record || isTerminal(record.status)) {
            stop();
            resolve(record);
            return;
          }
        } while (again);
      } catch {
        stop();
        resolve(undefined);
      } finally {
        checking = false;
      }
    };
    const stop = deps.log.watch(runId, () => void check());
    void check();
  });
}

/**
 * Deletes a throwaway session (`store: false`) once its run ended, retrying briefly while the
 * run's host still holds it; failures are reported, never thrown.
 */
export async function discardAfterRun(
  deps: AppDeps,
  runId: string,
  sessionId: string,
  tenantId: string,
): Promise<void> {
  await whenRunEnds(deps, runId);
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      await deps.store.delete(sessionId, { tenant: tenantId });
      return;
    } catch (error) {
      if (!SessionLockedError.isInstance(error)) {
        deps.reportError?.(error);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
