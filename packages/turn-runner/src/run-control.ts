/** Why a run was ended at once. */
export type RunEnd = "aborted" | "shutdown";

/**
 * The controls of one running prompt: `stop()` asks for a graceful end (cut the waits, then
 * one final turn without tools), `end()` ends it at once (abort or shutdown).
 */
export class RunControl {
  readonly #end = new AbortController();
  readonly #wait = new AbortController();
  #endReason: RunEnd | undefined;
  #stopRequested = false;

  /** Fires when the run is ended at once (abort or shutdown). */
  get signal(): AbortSignal {
    return this.#end.signal;
  }

  /** Fires on stop, abort and shutdown: every wait (backoff, tools) listens to this one. */
  get waitSignal(): AbortSignal {
    return this.#wait.signal;
  }

  /** Why the run was ended at once, if it was. */
  get ended(): RunEnd | undefined {
    return this.#endReason;
  }

  /** Whether a graceful stop was asked for. */
  get stopRequested(): boolean {
    return this.#stopRequested;
  }

  /** Ends the run at once; the first reason given wins. */
  end(reason: RunEnd): void {
    this.#endReason ??= reason;
    this.#wait.abort();
    this.#end.abort();
  }

  /** Asks for a graceful end: waits are cut and the next answer is the final one. */
  stop(): void {
    this.#stopRequested = true;
    this.#wait.abort();
  }
}
