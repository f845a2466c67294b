/** Why a guarded stream was cut short by Arbor rather than by the provider. */
export type GuardOutcome = "aborted" | "timeout" | undefined;

/**
 * Links the caller's abort signal and an idle timeout to one controller handed to the SDK.
 * Activity is a timestamp write per event; the timer only wakes once per idle period, so
 * the guard costs next to nothing per event.
 */
export class StreamGuard {
  readonly controller = new AbortController();
  outcome: GuardOutcome;
  #last = performance.now();
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #signal: AbortSignal | undefined;
  readonly #idleMs: number;
  readonly #onAbort = () => this.#cut("aborted");

  constructor(signal: AbortSignal | undefined, idleMs: number) {
    this.#signal = signal;
    this.#idleMs = idleMs;
    if (signal?.aborted) this.#cut("aborted");
    else signal?.addEventListener("abort", this.#onAbort, { once: true });
    if (idleMs > 0 && idleMs < Number.POSITIVE_INFINITY) this.#arm(idleMs);
  }

  /** Records that bytes arrived. */
  touch(): void {
    this.#last = performance.now();
  }

  /** Stops the timer and detaches from the caller's signal. */
  dispose(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#signal?.removeEventListener("abort", this.#onAbort);
  }

  #arm(ms: number): void {
    this.#timer = setTimeout(() => {
      const idle = performance.now() - this.#last;
      if (idle >= this.#idleMs) this.#cut("timeout");
      else this.#arm(this.#idleMs - idle);
    }, ms);
    this.#timer.unref?.();
  }

  #cut(outcome: Exclude<GuardOutcome, undefined>): void {
    if (this.outcome !== undefined) return;
    this.outcome = outcome;
    this.controller.abort();
  }

  /** The error event for a stream Arbor cut, or `undefined` when it was not cut. */
  outcomeEvent(): { type: "error"; kind: "aborted" | "timeout"; message: string } | undefined {
    if (this.outcome === "aborted") {
      return { type: "error", kind: "aborted", message: "the request was aborted" };
    }
    if (this.outcome === "timeout") {
      return {
        type: "error",
        kind: "timeout",
        message: `no data from the provider for ${this.#idleMs} ms (idle timeout)`,
      };
    }
    return undefined;
  }
}
