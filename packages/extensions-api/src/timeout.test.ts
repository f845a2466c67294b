import { describe, expect, it } from "vitest";
import { callWithTimeout, type TimerSeam } from "./timeout.js";

function manualTimers() {
  const armed = new Map<number, () => void>();
  let next = 0;
  const timers: TimerSeam = {
    setTimeout: (callback) => {
      armed.set(++next, callback);
      return next;
    },
    clearTimeout: (handle) => void armed.delete(handle as number),
  };
  return {
    timers,
    armed,
    fire: () => {
      for (const callback of [...armed.values()]) callback();
    },
  };
}

describe("callWithTimeout", () => {
  it("returns a synchronous value without arming a timer", async () => {
    const { timers, armed } = manualTimers();
    expect(await callWithTimeout(() => 7, 100, timers)).toEqual({ status: "ok", value: 7 });
    expect(armed.size).toBe(0);
  });

  it("catches synchronous throws and rejections", async () => {
    const { timers } = manualTimers();
    const error = new Error("x");
    expect(
      await callWithTimeout(
        () => {
          throw error;
        },
        100,
        timers,
      ),
    ).toEqual({ status: "error", error });
    expect(await callWithTimeout(() => Promise.reject(error), 100, timers)).toEqual({
      status: "error",
      error,
    });
  });

  it("clears its timer once the call settles", async () => {
    const { timers, armed } = manualTimers();
    expect(await callWithTimeout(async () => "done", 100, timers)).toEqual({
      status: "ok",
      value: "done",
    });
    expect(armed.size).toBe(0);
  });

  it("times out when the timer fires first and ignores the late result", async () => {
    const { timers, fire } = manualTimers();
    let finish: (value: string) => void = () => {};
    const call = callWithTimeout(() => new Promise<string>((done) => (finish = done)), 100, timers);
    fire();
    finish("late");
    expect(await call).toEqual({ status: "timeout" });
  });

  it("arms no timer when the timeout is 0", async () => {
    const { timers, armed } = manualTimers();
    const call = callWithTimeout(async () => 1, 0, timers);
    expect(armed.size).toBe(0);
    expect(await call).toEqual({ status: "ok", value: 1 });
  });
});
