/** A stream whose write errors arrive as `error` events (process.stdout, process.stderr). */
export interface ErrorEmitter {
  on(event: "error", listener: (error: NodeJS.ErrnoException) => void): unknown;
}

/**
 * Ends the process quietly when the reader of its output goes away (`arbor … | head`):
 * an EPIPE on stdout or stderr calls `exit(0)` instead of crashing with a stack trace.
 * Any other write error is reported in one line and ends with code 1.
 */
export function endQuietlyOnBrokenPipe(
  streams: readonly ErrorEmitter[],
  exit: (code: number) => void,
  report: (message: string) => void,
): void {
  for (const stream of streams) {
    stream.on("error", (error) => {
      if (error.code === "EPIPE") {
        exit(0);
        return;
      }
      report(`arbor: cannot write the output: ${error.message}\n`);
      exit(1);
    });
  }
}
