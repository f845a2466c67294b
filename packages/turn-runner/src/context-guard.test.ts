import type { CustomEntry } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { drain, label, memorySession, messageOf, windowed } from "../test/factories.js";
import { AgentSession } from "./agent-session.js";
import { defineTool } from "./agent-tool.js";
import { CONTEXT_GUARD_CUSTOM_TYPE, ContextGuard, ToolOutputBudget } from "./context-guard.js";

const guard = { bufferTokens: 500 };
const words = (tokens: number) => "abcd".repeat(tokens);
const guardEntries = (session: Awaited<ReturnType<typeof memorySession>>) =>
  session
    .getEntries()
    .filter(
      (e): e is CustomEntry => e.type === "custom" && e.customType === CONTEXT_GUARD_CUSTOM_TYPE,
    )
    .map((e) => e.data);

describe("ContextGuard", () => {
  it("computes the limit as window − buffer − max output", () => {
    const model = windowed("alpha", 3_000, []);
    expect(new ContextGuard(guard, undefined).limitFor(model)).toBe(2_000);
    expect(new ContextGuard(guard, 700).limitFor(model)).toBe(1_800);
    // The room for the answer is at most a quarter of the window; the default buffer 5%.
    expect(new ContextGuard(guard, 100_000).limitFor(model)).toBe(1_750);
    expect(new ContextGuard({}, undefined).limitFor(windowed("big", 200_000, []))).toBe(198_476);
  });

  it("sends, switches to the first target that fits, or forces the final turn", () => {
    const small = { model: windowed("small", 3_000, []) };
    const medium = { model: windowed("medium", 6_000, []) };
    const large = { model: windowed("large", 60_000, []) };
    const contextGuard = new ContextGuard(guard, undefined);
    const targets = [small, medium, large];
    expect(contextGuard.check(1_000, small, targets).action).toBe("send");
    expect(contextGuard.check(4_000, small, targets)).toMatchObject({
      action: "switch_target",
      target: medium,
      limit: 5_000,
    });
    expect(contextGuard.check(9_000, small, [small, medium])).toMatchObject({
      action: "force_final",
      limit: 2_000,
    });
    expect(new ContextGuard({ enabled: false }, undefined).check(9e9, small, targets).action).toBe(
      "send",
    );
  });

  it("lets only one of two outputs take the last of the budget", async () => {
    const budget = new ToolOutputBudget(100);
    const output = { content: [{ type: "text" as const, text: words(60) }], isError: false };
    const [first, second] = await Promise.all([
      Promise.resolve().then(() => budget.fit(output)),
      Promise.resolve().then(() => budget.fit(output)),
    ]);
    expect(first).toBe(output);
    expect(second?.isError).toBe(true);
    expect(second?.content[0]).toMatchObject({ text: expect.stringMatching(/^Output dropped/) });
    expect(budget.exceeded).toBe(true);
    expect(budget.left).toBe(40);
  });
});

describe("AgentSession context guard", () => {
  it("moves to a target with a bigger window when the prompt does not fit", async () => {
    const session = await memorySession();
    const small = windowed("small", 3_000, []);
    const large = windowed("large", 60_000, ["Read it all."]);
    const agent = new AgentSession({
      targets: [{ model: small }, { model: large }],
      session,
      contextGuard: guard,
    });

    const { events, result } = await drain(agent.prompt(words(2_500)));

    expect(result).toMatchObject({ success: true });
    expect(small.requests).toHaveLength(0);
    expect(messageOf(session, session.getLeafId() as string).provider).toBe("large");
    expect(guardEntries(session)).toEqual([
      {
        turn: 0,
        action: "switch_target",
        estimate: expect.any(Number),
        limit: 59_000,
        from: { provider: "small", model: "small-model" },
        to: { provider: "large", model: "large-model" },
      },
    ]);
    expect(events.find((e) => e.type === "context_guard")).toMatchObject({
      action: "switch_target",
      target: { provider: "large" },
    });
  });

  it("forces the final turn when no target takes the prompt", async () => {
    const session = await memorySession();
    const model = windowed("small", 3_000, ["Summary of what fits."]);
    const tool = defineTool({
      name: "noop",
      description: "Does nothing",
      parameters: z.object({}),
      execute: () => "ok",
    });
    const agent = new AgentSession({
      targets: [{ model }],
      session,
      tools: [tool],
      contextGuard: guard,
    });
    const { events, result } = await drain(agent.prompt(words(2_500)));
    expect(result).toMatchObject({
      success: true,
      finalReport: { value: "Summary of what fits." },
    });
    expect(model.requests[0]?.tools).toBeUndefined();
    expect(events).toContainEqual({ type: "final_turn", turnIndex: 0, reason: "context_limit" });
    expect(guardEntries(session)).toMatchObject([{ action: "force_final", limit: 2_000 }]);
  });

  it("counts the provider's usage of the last answer (compaction off)", async () => {
    const session = await memorySession();
    const model = windowed("small", 3_000, [
      {
        blocks: [{ type: "toolCall", id: "c1", name: "noop", arguments: {} }],
        usage: { input: 1_950, output: 40 },
      },
      "Done.",
    ]);
    const tool = defineTool({
      name: "noop",
      description: "Does nothing",
      parameters: z.object({}),
      execute: () => words(30),
    });
    const agent = new AgentSession({
      targets: [{ model }],
      session,
      tools: [tool],
      contextGuard: guard,
      compaction: { enabled: false },
    });
    const { result } = await drain(agent.prompt("Go"));
    expect(result).toMatchObject({ success: true, turns: 2 });
    // 1,990 reported + the tool result's estimate passes 2,000: the second turn is final.
    expect(model.requests[1]?.tools).toBeUndefined();
    expect(guardEntries(session)).toMatchObject([{ turn: 1, action: "force_final" }]);
  });

  it("counts with a real tokenizer when one is given, chars/4 otherwise", async () => {
    const prompt = "abcd".repeat(600); // 2,400 characters: 600 tokens at chars/4
    const perCharacter = (text: string) => text.length;
    const served: string[] = [];
    for (const countTokens of [undefined, perCharacter]) {
      const session = await memorySession();
      const agent = new AgentSession({
        targets: [
          { model: windowed("small", 3_000, ["From small."]) },
          { model: windowed("large", 60_000, ["From large."]) },
        ],
        session,
        contextGuard: { ...guard, ...(countTokens ? { countTokens } : {}) },
      });
      const { result } = await drain(agent.prompt(prompt));
      expect(result).toMatchObject({ success: true });
      served.push(String(messageOf(session, session.getLeafId() as string).provider));
      if (countTokens) {
        expect(guardEntries(session)).toMatchObject([
          { action: "switch_target", estimate: expect.any(Number), to: { provider: "large" } },
        ]);
        expect((guardEntries(session)[0] as { estimate: number }).estimate).toBe(2_400);
      } else {
        expect(guardEntries(session)).toEqual([]);
      }
    }
    expect(served).toEqual(["small", "large"]);
    // Tool outputs are counted with the same tokenizer.
    const output = { content: [{ type: "text" as const, text: "x".repeat(150) }], isError: false };
    expect(new ToolOutputBudget(100).fit(output).isError).toBe(false);
    expect(new ToolOutputBudget(100, perCharacter).fit(output).isError).toBe(true);
  });

  it("drops a tool output that would pass the limit and, with compaction off, makes the next turn final", async () => {
    const session = await memorySession();
    const model = windowed("small", 3_000, [
      {
        blocks: [
          { type: "toolCall", id: "c1", name: "dump", arguments: { n: 1 } },
          { type: "toolCall", id: "c2", name: "dump", arguments: { n: 2 } },
        ],
      },
      "I could read one of them.",
    ]);
    const dump = defineTool({
      name: "dump",
      description: "Prints a lot",
      parameters: z.object({ n: z.number() }),
      execute: () => words(1_200),
    });
    const agent = new AgentSession({
      targets: [{ model }],
      session,
      tools: [dump],
      contextGuard: guard,
      compaction: { enabled: false },
    });

    const { events, result } = await drain(agent.prompt("Dump both"));

    expect(result).toMatchObject({ success: true, turns: 2 });
    const results = session
      .getBranch()
      .filter((entry) => label(entry) === "message:toolResult")
      .map((entry) => messageOf(session, entry.id));
    expect(results.map((message) => message.isError)).toEqual([false, true]);
    expect(JSON.stringify(results[1]?.content)).toContain("Output dropped");
    expect(model.requests[1]?.tools).toBeUndefined();
    expect(events).toContainEqual({ type: "final_turn", turnIndex: 1, reason: "context_limit" });
  });

  it("stays out of the way when disabled", async () => {
    const session = await memorySession();
    const model = windowed("small", 3_000, ["ok"]);
    const agent = new AgentSession({
      targets: [{ model }],
      session,
      contextGuard: { enabled: false },
    });
    const { events } = await drain(agent.prompt(words(2_500)));
    expect(events.some((e) => e.type === "context_guard" || e.type === "final_turn")).toBe(false);
  });
});
