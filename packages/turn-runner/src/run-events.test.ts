import { describe, expect, it } from "vitest";
import { z } from "zod";
import { drain, memorySession, scripted } from "../test/factories.js";
import { AgentSession } from "./agent-session.js";
import { defineTool } from "./agent-tool.js";
import { type AgentEvent, InvalidSubscriptionError } from "./contracts/index.js";
import { RunEvents } from "./run-events.js";

async function collect(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const seen: AgentEvent[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

const ancestry = { runId: "r", sessionId: "s", originId: "r", agentPath: "main" };

const call = (id: string) => ({ type: "toolCall" as const, id, name: "gate", arguments: {} });

/** A run held open inside a tool until `release()`, so subscribers can join mid-run. */
async function heldRun() {
  const session = await memorySession();
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let markStarted: () => void = () => undefined;
  const started = new Promise<void>((resolve) => {
    markStarted = resolve;
  });
  const gate = defineTool({
    name: "gate",
    description: "Waits for the test",
    parameters: z.object({}),
    execute: async () => {
      markStarted();
      await released;
      return "open";
    },
  });
  const model = scripted("alpha", [
    { blocks: [{ type: "text", text: "Let me check." }, call("c1")], chunkSize: 3 },
    { blocks: [{ type: "text", text: "All done here." }], chunkSize: 3 },
  ]);
  let ids = 0;
  const agent = new AgentSession({
    targets: [{ model }],
    session,
    tools: [gate],
    generateRunId: () => `run-${++ids}`,
  });
  const run = agent.prompt("Go");
  await started;
  return { run, release, session };
}

describe("a run's events as a multicast stream", () => {
  it("stamps every event with the run id and the sequence 1, 2, 3, … up to agent_end", async () => {
    const { run, release } = await heldRun();
    release();
    const { stamped, result } = await drain(run);
    expect(run.runId).toBe("run-1");
    expect(stamped.map((event) => event.seq)).toEqual(stamped.map((_, index) => index + 1));
    expect(new Set(stamped.map((event) => event.runId))).toEqual(new Set(["run-1"]));
    expect(stamped.at(-1)).toMatchObject({ type: "agent_end", result: { runId: "run-1" } });
    expect(result.runId).toBe("run-1");
  });

  it("replays what a late subscriber missed, then streams the rest", async () => {
    const { run, release } = await heldRun();
    // Joined while the tool runs: the first turn is over, the second not started.
    const late = run.subscribe();
    const reading = collect(late);
    release();
    const all = await collect(run.events);
    const lateSeen = await reading;
    expect(lateSeen).toEqual(all);
    expect(all[0]).toMatchObject({ type: "agent_started", seq: 1 });
    expect(all.filter((event) => event.type === "turn_start")).toHaveLength(2);
  });

  it("gives two subscribers identical sequences, however differently they read", async () => {
    const { run, release } = await heldRun();
    const slow = (async () => {
      const seen: AgentEvent[] = [];
      for await (const event of run.subscribe()) {
        seen.push(event);
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      return seen;
    })();
    const fast = collect(run.subscribe());
    release();
    const [a, b] = await Promise.all([slow, fast]);
    expect(a.length).toBeGreaterThan(5);
    expect(a).toEqual(b);
    expect(a.map((event) => event.seq)).toEqual(a.map((_, index) => index + 1));
  });

  it("starts after afterSeq, for any afterSeq in the middle, at the end and past it", async () => {
    const { run, release } = await heldRun();
    release();
    const all = await collect(run.events);
    await run.result;
    for (const afterSeq of [0, 1, 3, Math.floor(all.length / 2), all.length - 1, all.length]) {
      const resumed = await collect(run.subscribe({ afterSeq }));
      expect(resumed).toEqual(all.slice(afterSeq));
      expect(resumed[0]?.seq ?? all.length + 1).toBe(afterSeq + 1);
    }
    // Past the end of an ended run: nothing more will come.
    expect(await collect(run.subscribe({ afterSeq: all.length + 10 }))).toEqual([]);
  });

  it("lets a subscriber join after the run ended and replays the whole run", async () => {
    const { run, release } = await heldRun();
    release();
    const result = await run.result;
    const first = await collect(run.subscribe());
    const second = await collect(run.subscribe());
    expect(first).toEqual(second);
    expect(first.at(-1)).toEqual({
      type: "agent_end",
      runId: run.runId,
      seq: first.length,
      ancestry: first[0]?.ancestry,
      result,
    });
    // The original `events` iterable still has every event too.
    expect(await collect(run.events)).toEqual(first);
  });

  it("refuses an afterSeq that is not a whole number of 0 or more, with a typed error", async () => {
    const { run, release } = await heldRun();
    for (const afterSeq of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, "3" as unknown]) {
      const subscribing = () => run.subscribe({ afterSeq: afterSeq as number });
      expect(subscribing).toThrow(InvalidSubscriptionError);
      try {
        subscribing();
      } catch (error) {
        expect(InvalidSubscriptionError.isInstance(error)).toBe(true);
        expect(error).toMatchObject({ code: "invalid_subscription", afterSeq });
      }
    }
    release();
    const { result } = await drain(run);
    expect(result.success).toBe(true);
  });
});

describe("RunEvents", () => {
  it("wakes a subscriber waiting past the end only once its next event exists", async () => {
    const events = new RunEvents(ancestry);
    events.push({ type: "turn_start", turnIndex: 0 });
    const ahead = collect(events.subscribe({ afterSeq: 2 }));
    events.push({ type: "turn_end", turnIndex: 0 });
    events.push({ type: "turn_start", turnIndex: 1 });
    events.close();
    expect(await ahead).toEqual([
      { runId: "r", seq: 3, ancestry, type: "turn_start", turnIndex: 1 },
    ]);
  });

  it("stops a subscriber that returns early without disturbing the others", async () => {
    const events = new RunEvents(ancestry);
    const quitter = events.subscribe()[Symbol.asyncIterator]();
    const stayer = collect(events.subscribe());
    events.push({ type: "turn_start", turnIndex: 0 });
    expect((await quitter.next()).value).toMatchObject({ seq: 1 });
    await quitter.return?.();
    events.push({ type: "turn_end", turnIndex: 0 });
    expect(await quitter.next()).toEqual({ value: undefined, done: true });
    events.close();
    expect((await stayer).map((event) => event.seq)).toEqual([1, 2]);
  });

  it("ignores pushes after close, so no event follows agent_end", async () => {
    const events = new RunEvents(ancestry);
    events.push({ type: "turn_start", turnIndex: 0 });
    events.close();
    events.push({ type: "turn_end", turnIndex: 0 });
    expect(events.lastSeq).toBe(1);
    expect(await collect(events.subscribe())).toHaveLength(1);
  });
});
