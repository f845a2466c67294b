import { type ModelInfo, modelInfoSchema } from "@arbor/providers";
import { SCRIPTED_MODEL_INFO, ScriptedModel } from "@arbor/providers/test";
import { describe, expect, it } from "vitest";
import { drain, memorySession, recordingSleep, scripted } from "../../test/factories.js";
import { AgentSession } from "../agent-session.js";
import {
  type AccountingRecord,
  accountingRecordSchema,
  agentEventSchema,
} from "../contracts/index.js";

/** A scripted model the catalogue has no price for. */
function unpriced(
  provider: string,
  responses: ConstructorParameters<typeof ScriptedModel>[0]["responses"],
) {
  const info: ModelInfo = modelInfoSchema.parse({
    ...SCRIPTED_MODEL_INFO,
    provider,
    id: `${provider}-local`,
    pricing: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  });
  return new ScriptedModel({ responses, info });
}

describe("the accounting sink", () => {
  it("gets one record per model call as it ends, failed ones included, with the run's ancestry", async () => {
    const records: AccountingRecord[] = [];
    let running = true;
    const seenWhileRunning: boolean[] = [];
    const model = scripted("alpha", [{ error: { kind: "timeout" } }, "fine"]);
    const agent = new AgentSession({
      targets: [{ model }],
      session: await memorySession(),
      sleep: recordingSleep().sleep,
      now: () => 42,
      ancestry: { originId: "origin-1", parentId: "parent-1", agentPath: "main:child" },
      accountingSink: (record) => {
        records.push(record);
        seenWhileRunning.push(running);
      },
    });
    const run = agent.prompt("hi");
    const { stamped, result } = await drain(run);
    running = false;
    expect(result.success).toBe(true);
    expect(seenWhileRunning).toEqual([true, true]);
    const ancestry = stamped[0]?.ancestry;
    expect(ancestry).toMatchObject({ parentId: "parent-1", agentPath: "main:child" });
    expect(records).toEqual([
      expect.objectContaining({
        ancestry,
        kind: "model_call",
        turnIndex: 0,
        attempt: 1,
        target: { provider: "alpha", model: "alpha-model" },
        outcome: "error",
        errorKind: "timeout",
        priced: true,
        timestamp: 42,
      }),
      expect.objectContaining({
        ancestry,
        attempt: 2,
        outcome: "done",
        stopReason: "stop",
        priced: true,
      }),
    ]);
    for (const record of records) expect(accountingRecordSchema.parse(record)).toEqual(record);
    // The result's totals are the sums of the records.
    const sum = (pick: (record: AccountingRecord) => number) =>
      records.reduce((total, record) => total + pick(record), 0);
    expect(sum((record) => record.usage.input)).toBe(result.usage.input);
    expect(sum((record) => record.usage.output)).toBe(result.usage.output);
    expect(sum((record) => record.usage.cost.total)).toBeCloseTo(result.cost, 12);
    expect(result.cost).toBeGreaterThan(0);
  });

  it("is awaited: the run waits for a slow sink before it goes on", async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const session = await memorySession();
    const agent = new AgentSession({
      targets: [{ model: scripted("alpha", ["answer"]) }],
      session,
      accountingSink: () => gate,
    });
    const run = agent.prompt("hi");
    let settled = false;
    void run.result.then(() => {
      settled = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 30));
    // The answer is not stored while its record waits.
    expect(settled).toBe(false);
    expect(session.getEntries().map((entry) => entry.type)).toEqual(["message"]);
    release();
    expect((await run.result).success).toBe(true);
    expect(session.getEntries()).toHaveLength(2);
  });

  it.each([
    [
      "throws",
      () => {
        throw new Error("billing is down");
      },
    ],
    ["rejects", () => Promise.reject(new Error("billing is down"))],
    [
      "throws a non-error",
      () => {
        throw "billing is down";
      },
    ],
  ])("reports a sink that %s and finishes the run with its usage counted", async (_how, sink) => {
    const agent = new AgentSession({
      targets: [{ model: scripted("alpha", ["answer"]) }],
      session: await memorySession(),
      accountingSink: sink,
    });
    const { events, result } = await drain(agent.prompt("hi"));
    expect(result.success).toBe(true);
    expect(result.usage.output).toBeGreaterThan(0);
    expect(events.filter((event) => event.type === "accounting_sink_failed")).toEqual([
      { type: "accounting_sink_failed", turnIndex: 0, message: "billing is down" },
    ]);
  });
});

describe("a compaction's summary call", () => {
  it("is accounted as a record of kind compaction, before the answer's", async () => {
    const session = await memorySession();
    for (let i = 0; i < 3; i++) {
      await session.appendMessage({ role: "user", content: `Q${i} ${"w".repeat(400)}` });
      await session.appendMessage({
        role: "assistant",
        content: [{ type: "text", text: `A${i} ${"w".repeat(400)}` }],
        stopReason: "stop",
        provider: "alpha",
        model: "alpha-model",
        timestamp: 1,
      } as Parameters<typeof session.appendMessage>[0]);
    }
    const info: ModelInfo = modelInfoSchema.parse({
      ...SCRIPTED_MODEL_INFO,
      provider: "alpha",
      id: "alpha-model",
      contextWindow: 1_000,
    });
    const model = new ScriptedModel({ responses: ["## Goal\nearlier", "the answer"], info });
    const records: AccountingRecord[] = [];
    const agent = new AgentSession({
      targets: [{ model }],
      session,
      compaction: { reserveTokens: 500, keepRecentTokens: 150 },
      accountingSink: (record) => {
        records.push(record);
      },
    });
    const { events, result } = await drain(agent.prompt("next"));
    expect(events).toContainEqual(
      expect.objectContaining({ type: "compaction", status: "compacted" }),
    );
    expect(records.map((record) => [record.kind, record.outcome, record.turnIndex])).toEqual([
      ["compaction", "done", 0],
      ["model_call", "done", 0],
    ]);
    expect(records[0]).not.toHaveProperty("attempt");
    const total = records.reduce((sum, record) => sum + record.usage.input, 0);
    expect(total).toBe(result.usage.input);
  });
});

describe("a model without a price", () => {
  it("is reported once per run and model, at its first call, and its records say so", async () => {
    const records: AccountingRecord[] = [];
    const local = unpriced("local", [
      { error: { kind: "model_error", status: 400 } },
      "from local",
      "again",
    ]);
    const other = unpriced("other", [{ error: { kind: "model_error", status: 400 } }]);
    const agent = new AgentSession({
      targets: [{ model: local }, { model: other }],
      session: await memorySession(),
      sleep: recordingSleep().sleep,
      accountingSink: (record) => {
        records.push(record);
      },
    });
    const first = await drain(agent.prompt("hi"));
    expect(first.result.success).toBe(true);
    const reports = first.events.filter((event) => event.type === "model_unpriced");
    expect(reports).toEqual([
      {
        type: "model_unpriced",
        turnIndex: 0,
        target: { provider: "local", model: "local-local" },
        message:
          "local/local-local has no price in the model catalogue: its cost is counted as $0.",
      },
      {
        type: "model_unpriced",
        turnIndex: 0,
        target: { provider: "other", model: "other-local" },
        message:
          "other/other-local has no price in the model catalogue: its cost is counted as $0.",
      },
    ]);
    for (const event of first.stamped) expect(agentEventSchema.parse(event)).toEqual(event);
    expect(records.every((record) => record.priced === false)).toBe(true);
    expect(first.result.cost).toBe(0);
    // A new run reports it again, once.
    const second = await drain(agent.prompt("more"));
    expect(second.events.filter((event) => event.type === "model_unpriced")).toHaveLength(1);
  });

  it("is not reported for a priced model", async () => {
    const agent = new AgentSession({
      targets: [{ model: scripted("alpha", ["hi"]) }],
      session: await memorySession(),
    });
    const { events } = await drain(agent.prompt("hi"));
    expect(events.some((event) => event.type === "model_unpriced")).toBe(false);
  });
});
