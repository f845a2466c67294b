/** The signals that end `arbor` gracefully: a stop request and a closed terminal. */
export const TERMINATION_SIGNALS = ["SIGTERM", "SIGHUP"] as const;

/** One of {@link TERMINATION_SIGNALS}. */
export type TerminationSignal = (typeof TERMINATION_SIGNALS)[number];

/** The exit code a shell reports for a process ended by `signal`: 128 + its number. */
export function signalExitCode(signal: TerminationSignal | "SIGINT"): number {
  const numbers = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as const;
  return 128 + numbers[signal];
}

/** The part of `process` the listener uses; tests pass an `EventEmitter`. */
export interface SignalSource {
  on(signal: TerminationSignal, listener: () => void): unknown;
  removeListener(signal: TerminationSignal, listener: () => void): unknown;
}

/**
 * Calls `onSignal` once, for the first SIGTERM or SIGHUP, instead of letting the process
 * die: the caller aborts the running answer (stored as aborted) and closes the session, so
 * its lock is released. Later signals are ignored while that happens. Returns a remover.
 *
 * @param onSignal what to do; it should end the process's work soon
 * @param source the process (a seam for tests)
 */
export function onTerminationSignal(
  onSignal: (signal: TerminationSignal) => void,
  source: SignalSource = process,
): () => void {
  let received = false;
  const listeners = TERMINATION_SIGNALS.map((signal) => {
    const listener = () => {
      if (received) return;
      received = true;
      onSignal(signal);
    };
    source.on(signal, listener);
    return [signal, listener] as const;
  });
  return () => {
    for (const [signal, listener] of listeners) source.removeListener(signal, listener);
  };
}
