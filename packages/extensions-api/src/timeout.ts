/** The timer functions the runner uses for handler timeouts; a seam for tests. */
export interface TimerSeam {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/**
 * The longest delay a timer takes (2^31 − 1 ms, about 24.8 days): Node fires a longer one
 * at once, so every longer timeout is clamped to it.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A timeout as a timer can take it: clamped to {@link MAX_TIMER_MS}. */
export function clampTimeout(ms: number): number {
  return Math.min(ms, MAX_TIMER_MS);
}

/** Node's timers, looked up at call time so fake timers installed later take effect. */
export const systemTimers: TimerSeam = {
  setTimeout: (callback, ms) => setTimeout(callback, clampTimeout(ms)),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** How a call guarded by {@link callWithTimeout} ended. */
export type GuardedCall<T> =
  | { status: "ok"; value: T }
  | { status: "error"; error: unknown }
  | { status: "timeout" };

/**
 * Time that does not count against handler deadlines: while a hold is open (an extension
 * waits for the user's answer), the deadlines of the calls watching it are off; when the
 * last hold ends, each of those calls gets a fresh full window.
 */
export class DeadlineHold {
  private holds = 0;
  private readonly listeners = new Set<(held: boolean) => void>();

  /** Whether a wait is under way. */
  get held(): boolean {
    return this.holds > 0;
  }

  /** Starts a wait that does not count; returns the function that ends it (idempotent). */
  begin(): () => void {
    this.holds++;
    if (this.holds === 1) this.tell(true);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.holds--;
      if (this.holds === 0) this.tell(false);
    };
  }

  /** Calls `listener` when the first hold begins and the last ends; returns a remover. */
  watch(listener: (held: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private tell(held: boolean): void {
    for (const listener of [...this.listeners]) listener(held);
  }
}

/**
 * Calls `run` and settles with its value, its error (thrown or rejected), or a timeout,
 * whichever comes first. A late settlement after a timeout is swallowed.
 * @param timeoutMs - no limit when not a positive finite number
 */
export function callWithTimeout<T>(
  run: () => T | PromiseLike<T>,
  timeoutMs: number,
  timers: TimerSeam,
  hold?: DeadlineHold,
): Promise<GuardedCall<Awaited<T>>> {
  return new Promise((resolve) => {
    let settled = false;
    let handle: unknown;
    let armed = false;
    let unwatch: (() => void) | undefined;
    const disarm = () => {
      if (armed) timers.clearTimeout(handle);
      armed = false;
    };
    const arm = () => {
      disarm();
      if (settled || hold?.held) return;
      armed = true;
      handle = timers.setTimeout(() => finish({ status: "timeout" }), clampTimeout(timeoutMs));
    };
    const finish = (outcome: GuardedCall<Awaited<T>>) => {
      if (settled) return;
      settled = true;
      disarm();
      unwatch?.();
      resolve(outcome);
    };
    let result: T | PromiseLike<T>;
    try {
      result = run();
    } catch (error) {
      finish({ status: "error", error });
      return;
    }
    if (!isThenable(result)) {
      finish({ status: "ok", value: result as Awaited<T> });
      return;
    }
    if (timeoutMs > 0 && Number.isFinite(timeoutMs)) {
      unwatch = hold?.watch((held) => (held ? disarm() : arm()));
      arm();
    }
    Promise.resolve(result).then(
      (value) => finish({ status: "ok", value }),
      (error: unknown) => finish({ status: "error", error }),
    );
  });
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
}
