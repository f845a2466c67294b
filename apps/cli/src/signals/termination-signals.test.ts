import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { onTerminationSignal, type SignalSource, signalExitCode } from "./termination-signals.js";

describe("onTerminationSignal", () => {
  it("calls back once for the first SIGTERM or SIGHUP, and not after removal", () => {
    for (const first of ["SIGTERM", "SIGHUP"] as const) {
      const source = new EventEmitter();
      const seen: string[] = [];
      const remove = onTerminationSignal(
        (signal) => seen.push(signal),
        source as unknown as SignalSource,
      );
      source.emit(first);
      source.emit("SIGTERM");
      source.emit("SIGHUP");
      expect(seen).toEqual([first]);
      remove();
      expect(source.listenerCount("SIGTERM") + source.listenerCount("SIGHUP")).toBe(0);
    }
  });

  it("exit codes are 128 + the signal number, as shells report them", () => {
    expect([signalExitCode("SIGHUP"), signalExitCode("SIGINT"), signalExitCode("SIGTERM")]).toEqual(
      [129, 130, 143],
    );
  });
});
