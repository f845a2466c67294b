import type { AgentHost, HostRun } from "@arbor/orchestration";
import { describe, expect, it } from "vitest";
import { RunEventChannel } from "../src/extensions/run-event-channel.js";
import { RunExtensions } from "../src/extensions/run-extensions.js";
import { RunUi } from "../src/extensions/run-ui.js";
import type { ServerRunEvent } from "../src/runs/server-run-event.js";

/** Agent events with the runner's own seq numbers, one every `gapMs`. */
async function* agentEvents(count: number, gapMs: number): AsyncGenerator<ServerRunEvent> {
  for (let i = 1; i <= count; i++) {
    await new Promise((resolve) => setTimeout(resolve, gapMs));
    yield { runId: "run_x", seq: i, type: "turn_start", turnIndex: i } as unknown as ServerRunEvent;
  }
}

async function collect(events: AsyncIterable<ServerRunEvent>): Promise<ServerRunEvent[]> {
  const all: ServerRunEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

describe("RunEventChannel", () => {
  it("gives the agent's and the server's events one dense sequence, in the order they came", async () => {
    const channel = new RunEventChannel("run_x");
    const reading = collect(channel.events());
    const pumping = channel.pump(agentEvents(5, 5));
    channel.push({ type: "ui_notify", extensionName: "e", message: "first", level: "info" });
    await new Promise((resolve) => setTimeout(resolve, 12));
    channel.push({ type: "ui_notify", extensionName: "e", message: "middle", level: "info" });
    await pumping;
    channel.push({ type: "command_end", name: "x", status: "done" });
    channel.end();
    channel.push({ type: "ui_notify", extensionName: "e", message: "after end", level: "info" });
    const events = await reading;
    expect(events.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(events.every((event) => event.runId === "run_x")).toBe(true);
    expect(events[0]).toMatchObject({ type: "ui_notify", message: "first" });
    expect(events.at(-1)).toMatchObject({ type: "command_end" });
    expect(JSON.stringify(events)).not.toContain("after end");
    const middle = events.findIndex(
      (event) => (event as { message?: string }).message === "middle",
    );
    expect(middle).toBeGreaterThan(1);
    expect(middle).toBeLessThan(6);
  });
});

describe("RunExtensions.drive", () => {
  it("a store write that fails ends the drive with that error, never as an unhandled rejection", async () => {
    const channel = new RunEventChannel("run_x");
    const ui = new RunUi({ emit: (event) => channel.push(event), maxWaitMs: 1000 });
    const extensions = new RunExtensions({} as never, ui, channel);
    const run = { events: agentEvents(3, 20), result: Promise.resolve({}) } as unknown as HostRun;
    const host = {
      onSessionChange: () => () => true,
      onToolUpdate: () => () => true,
      prompt: () => run,
    } as unknown as AgentHost;
    const unhandled: unknown[] = [];
    const listener = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", listener);
    try {
      const driving = extensions.drive(
        host,
        { prompt: "hi" },
        {
          record: async () => {
            throw new Error("the log refused the write");
          },
          started: () => undefined,
        },
      );
      await expect(driving).rejects.toThrow("the log refused the write");
      await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      process.off("unhandledRejection", listener);
    }
    expect(unhandled).toEqual([]);
  });
});
