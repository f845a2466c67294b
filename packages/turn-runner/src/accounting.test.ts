import type { Model, ModelEvent } from "@arbor/providers";
import type { CustomEntry } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import { drain, memorySession, messageOf, recordingSleep, scripted } from "../test/factories.js";
import { AgentSession } from "./agent-session.js";
import { FAILOVER_CUSTOM_TYPE } from "./failover-policy.js";

/** A model whose first call reports usage and then fails; later calls answer. */
function failingOnceAfterUsage(): Model {
  const info = scripted("alpha", []).info;
  let calls = 0;
  return {
    info,
    async *stream(): AsyncIterable<ModelEvent> {
      calls++;
      if (calls === 1) {
        yield { type: "text_delta", index: 0, delta: "Half an ans" };
        yield { type: "usage", usage: { input: 100, output: 7, cacheRead: 50, cacheWrite: 0 } };
        yield { type: "error", kind: "network_error", message: "connection reset" };
        return;
      }
      yield { type: "text_delta", index: 0, delta: "Whole answer" };
      yield { type: "usage", usage: { input: 120, output: 9, cacheRead: 0, cacheWrite: 10 } };
      yield { type: "done", reason: "stop" };
    },
  };
}

describe("accounting per attempt", () => {
  it("prices every attempt, failed ones on their failover record, and sums them", async () => {
    const session = await memorySession();
    const { sleep } = recordingSleep();
    const agent = new AgentSession({
      targets: [{ model: failingOnceAfterUsage() }],
      session,
      sleep,
    });

    const { result } = await drain(agent.prompt("Hi"));

    // Scripted prices per million tokens: input 1, output 2, cacheRead 0.1, cacheWrite 1.25.
    const failedCost = (100 * 1 + 7 * 2 + 50 * 0.1) / 1e6;
    const servedCost = (120 * 1 + 9 * 2 + 10 * 1.25) / 1e6;
    const failover = session
      .getEntries()
      .find((e): e is CustomEntry => e.type === "custom" && e.customType === FAILOVER_CUSTOM_TYPE);
    expect(failover?.data).toMatchObject({
      kind: "network_error",
      usage: {
        input: 100,
        output: 7,
        cacheRead: 50,
        cacheWrite: 0,
        totalTokens: 157,
        cost: { input: 100e-6, output: 14e-6, cacheRead: 5e-6, cacheWrite: 0 },
      },
    });
    const failedUsage = failover?.data as { usage: { cost: { total: number } } } | undefined;
    expect(failedUsage?.usage.cost.total).toBeCloseTo(failedCost, 12);
    const answer = messageOf(session, session.getLeafId() as string);
    expect(answer.usage).toMatchObject({ input: 120, output: 9, cacheWrite: 10, totalTokens: 139 });
    expect((answer.usage as { cost: { total: number } }).cost.total).toBeCloseTo(servedCost, 12);
    expect(result.usage).toEqual({ input: 220, output: 16, cacheRead: 50, cacheWrite: 10 });
    expect(result.cost).toBeCloseTo(failedCost + servedCost, 12);
  });

  it("prices the partial answer of an aborted attempt", async () => {
    const session = await memorySession();
    const model = scripted("alpha", [
      {
        blocks: [{ type: "text", text: "one two three" }],
        chunkSize: 4,
        delayMs: 5,
        usage: { input: 40, output: 3 },
      },
    ]);
    const agent = new AgentSession({ targets: [{ model }], session });
    const run = agent.prompt("Count");
    for await (const event of run.events) if (event.type === "text_delta") agent.abort();
    await run.result;
    expect(messageOf(session, "e2")).toMatchObject({
      stopReason: "aborted",
      usage: { totalTokens: expect.any(Number), cost: { total: expect.any(Number) } },
    });
  });
});
