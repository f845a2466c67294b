import type { ExtensionErrorEvent } from "./events.js";
import { type ExtensionOwner, runAsExtension } from "./extension-scope.js";
import { callWithTimeout, type DeadlineHold, type GuardedCall, type TimerSeam } from "./timeout.js";

/** How the runner calls into an extension. */
export interface ExtensionCallPolicy {
  /** No limit when 0. */
  timeoutMs: number;
  timers: TimerSeam;
  /** Report a call whose synchronous part ran at least this long; 0 to never report. */
  blockReportMs: number;
  /** Waits for the user that do not count against `timeoutMs`. */
  hold?: DeadlineHold;
}

/**
 * Calls extension code as `owner` (so what it leaves running stays attributed to it),
 * with the policy's timeout. Synchronous code cannot be interrupted in-process: a call
 * whose synchronous part held the event loop past `blockReportMs` is reported as
 * `blocked` once it returns, and one that never returns freezes the process (run such
 * extensions in a worker).
 * @param what - the call, for the report: "the tool_call handler", "the factory"
 */
export function callExtension<T>(
  owner: ExtensionOwner,
  origin: ExtensionErrorEvent["event"],
  what: string,
  run: () => T | PromiseLike<T>,
  policy: ExtensionCallPolicy,
): Promise<GuardedCall<Awaited<T>>> {
  let syncMs = 0;
  const call = callWithTimeout(
    () => {
      const started = performance.now();
      try {
        return runAsExtension(owner, run);
      } finally {
        syncMs = performance.now() - started;
      }
    },
    policy.timeoutMs,
    policy.timers,
    policy.hold,
  );
  if (policy.blockReportMs > 0 && syncMs >= policy.blockReportMs)
    owner.report(
      origin,
      "blocked",
      `${what} kept the event loop busy for ${Math.round(syncMs)} ms; synchronous work cannot be interrupted in-process (load the extension with isolation "worker")`,
    );
  return call;
}
