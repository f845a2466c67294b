import type { Model, ModelEvent, ModelRequest } from "@arbor/providers";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { addTool, drain, memorySession, messageOf, scripted, shape } from "../test/factories.js";
import { AgentSession } from "./agent-session.js";
import { defineTool } from "./agent-tool.js";

const call = (id: string, name: string, args: Record<string, unknown>) => ({
  type: "toolCall" as const,
  id,
  name,
  arguments: args,
});

describe("AgentSession: one answer", () => {
  it("persists the question and the answer with the model that served it", async () => {
    const session = await memorySession();
    const model = scripted("alpha", [
      { blocks: [{ type: "text", text: "Hello there" }], chunkSize: 4 },
    ]);
    const agent = new AgentSession({ targets: [{ model }], session, systemPrompt: "Be brief." });

    const run = agent.prompt("Hi");
    const { events, result } = await drain(run);

    expect(result).toEqual({
      success: true,
      finalReport: { status: "delivered", value: "Hello there", repaired: false, entryId: "e3" },
      runId: run.runId,
      turns: 1,
      usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0 },
      cost: (10 * 1 + 5 * 2) / 1_000_000,
      session: { id: session.id, location: session.location },
      sessionFile: session.location,
    });
    // e1 records the system prompt the run used.
    expect(shape(session)).toEqual([
      ["e1", "custom:arbor.system-prompt", null],
      ["e2", "message:user", "e1"],
      ["e3", "message:assistant", "e2"],
    ]);
    expect(session.getLeafId()).toBe("e3");
    expect(messageOf(session, "e3")).toMatchObject({
      role: "assistant",
      content: [{ type: "text", text: "Hello there" }],
      stopReason: "stop",
      provider: "alpha",
      model: "alpha-model",
      usage: { input: 10, output: 5 },
    });
    expect(model.requests[0]).toMatchObject({
      system: "Be brief.",
      messages: [{ role: "user", content: "Hi" }],
    });
    expect(model.requests[0]?.tools).toBeUndefined();
    expect(events.map((e) => e.type)).toEqual([
      "agent_started",
      "turn_start",
      "agent_update",
      "text_delta",
      "text_delta",
      "text_delta",
      "message_end",
      "turn_end",
      "agent_finished",
      "agent_end",
    ]);
  });

  it("stores the user message before the provider is called", async () => {
    const session = await memorySession();
    let seenAtCall: string[] = [];
    const model: Model = {
      info: scripted("alpha", []).info,
      async *stream(_request: ModelRequest): AsyncIterable<ModelEvent> {
        seenAtCall = shape(session).map(([, kind]) => kind);
        yield { type: "text_delta", index: 0, delta: "ok" };
        yield { type: "done", reason: "stop" };
      },
    };
    await drain(new AgentSession({ targets: [{ model }], session }).prompt("Hi"));
    expect(seenAtCall).toEqual(["message:user"]);
  });

  it("continues the conversation of the session in the next prompt", async () => {
    const session = await memorySession();
    const model = scripted("alpha", ["One", "Two"]);
    const agent = new AgentSession({ targets: [{ model }], session });
    await drain(agent.prompt("First"));
    await drain(agent.prompt("Second"));
    expect(model.requests[1]?.messages).toEqual([
      { role: "user", content: "First" },
      { role: "assistant", content: [{ type: "text", text: "One" }] },
      { role: "user", content: "Second" },
    ]);
    expect(session.buildSessionContext().messages).toHaveLength(4);
  });
});

describe("AgentSession: tools", () => {
  it("runs the calls, stores each result and loops until a final answer", async () => {
    const session = await memorySession();
    const model = scripted("alpha", [
      { blocks: [call("c1", "add", { a: 1, b: 2 }), call("c2", "add", { a: 3, b: 4 })] },
      "3 and 7",
    ]);
    const agent = new AgentSession({ targets: [{ model }], session, tools: [addTool] });

    const { events, result } = await drain(agent.prompt("Add"));

    expect(result).toMatchObject({ success: true, turns: 2 });
    expect(shape(session).map(([, kind]) => kind)).toEqual([
      "message:user",
      "message:assistant",
      "message:toolResult",
      "message:toolResult",
      "message:assistant",
    ]);
    expect(messageOf(session, "e2").stopReason).toBe("tool_use");
    const results = session
      .buildSessionContext()
      .messages.filter((m) => m.role === "toolResult")
      .map((m) => [m.toolCallId, m.content, m.isError]);
    expect(results).toEqual(
      expect.arrayContaining([
        ["c1", [{ type: "text", text: "3" }], false],
        ["c2", [{ type: "text", text: "7" }], false],
      ]),
    );
    expect(model.requests[0]?.tools?.[0]).toMatchObject({ name: "add" });
    expect(model.requests[1]?.messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "toolResult",
    ]);
    expect(events.filter((e) => e.type === "tool_result")).toHaveLength(2);
  });

  it("turns invalid arguments, unknown tools, throws and timeouts into error results", async () => {
    const session = await memorySession();
    const boom = defineTool({
      name: "boom",
      description: "Throws",
      parameters: z.object({}),
      execute: () => {
        throw new Error("disk on fire");
      },
    });
    const hang = defineTool({
      name: "hang",
      description: "Never ends",
      parameters: z.object({}),
      timeoutMs: 20,
      execute: () => new Promise<string>(() => undefined),
    });
    const model = scripted("alpha", [
      {
        blocks: [
          call("c1", "add", { a: "one" }),
          call("c2", "nope", {}),
          call("c3", "boom", {}),
          call("c4", "hang", {}),
        ],
      },
      "Sorry",
    ]);
    const agent = new AgentSession({ targets: [{ model }], session, tools: [addTool, boom, hang] });

    const { result } = await drain(agent.prompt("Go"));

    expect(result).toMatchObject({ success: true, turns: 2 });
    const byId = new Map(
      session
        .buildSessionContext()
        .messages.filter((m) => m.role === "toolResult")
        .map((m) => [m.toolCallId, m]),
    );
    for (const id of ["c1", "c2", "c3", "c4"]) expect(byId.get(id)?.isError).toBe(true);
    const textOf = (id: string) => {
      const content = (byId.get(id)?.content ?? []) as unknown as Array<{ text: string }>;
      return content[0]?.text;
    };
    expect(textOf("c1")).toContain("Invalid arguments for add");
    expect(textOf("c2")).toBe('Unknown tool "nope".');
    expect(textOf("c3")).toBe("Tool boom failed: disk on fire");
    expect(textOf("c4")).toBe("Tool hang timed out after 20 ms.");
  });

  it("runs several calls at once", async () => {
    const session = await memorySession();
    let running = 0;
    let peak = 0;
    const slow = defineTool({
      name: "slow",
      description: "Takes a while",
      parameters: z.object({ n: z.number() }),
      execute: async ({ n }) => {
        running++;
        peak = Math.max(peak, running);
        await new Promise((resolve) => setTimeout(resolve, 20));
        running--;
        return String(n);
      },
    });
    const model = scripted("alpha", [
      {
        blocks: [
          call("c1", "slow", { n: 1 }),
          call("c2", "slow", { n: 2 }),
          call("c3", "slow", { n: 3 }),
        ],
      },
      "done",
    ]);
    await drain(new AgentSession({ targets: [{ model }], session, tools: [slow] }).prompt("Go"));
    expect(peak).toBe(3);
  });

  it("fails with max_turns when the model keeps asking for tools in its final turn", async () => {
    const session = await memorySession();
    // Turn 2 is the forced final turn: its tool calls are rejected, retried twice, never run.
    const model = scripted("alpha", [
      { blocks: [call("c1", "add", { a: 1, b: 1 })] },
      { blocks: [call("c2", "add", { a: 2, b: 2 })] },
      { blocks: [call("c3", "add", { a: 2, b: 2 })] },
      { blocks: [call("c4", "add", { a: 2, b: 2 })] },
    ]);
    const agent = new AgentSession({
      targets: [{ model }],
      session,
      tools: [addTool],
      maxTurns: 2,
    });
    const { result } = await drain(agent.prompt("Loop"));
    expect(result).toMatchObject({ success: false, reason: "max_turns", turns: 2 });
    expect(model.remaining).toBe(0);
    // Only the first turn's call ran.
    const ran = session
      .getEntries()
      .filter((entry) => (entry as { message?: { role: string } }).message?.role === "toolResult");
    expect(ran).toHaveLength(1);
  });
});

describe("AgentSession: thinking and abort during tools", () => {
  it("streams thinking and stores it in the answer", async () => {
    const session = await memorySession();
    const model = scripted("alpha", [
      {
        blocks: [
          { type: "thinking", thinking: "Hmm, greet.", signature: "sig" },
          { type: "text", text: "Hi!" },
        ],
      },
    ]);
    const { events } = await drain(
      new AgentSession({ targets: [{ model }], session }).prompt("Hi"),
    );
    expect(events.filter((e) => e.type === "thinking_delta")).toEqual([
      { type: "thinking_delta", turnIndex: 0, index: 0, delta: "Hmm, greet." },
    ]);
    expect(messageOf(session, "e2").content).toEqual([
      { type: "thinking", thinking: "Hmm, greet.", signature: "sig" },
      { type: "text", text: "Hi!" },
    ]);
  });

  it("abort while a tool runs ends the run at once and signals the tool", async () => {
    const session = await memorySession();
    let toolSignal: AbortSignal | undefined;
    const wait = defineTool({
      name: "wait",
      description: "Waits until aborted",
      parameters: z.object({}),
      execute: (_args, { signal }) => {
        toolSignal = signal;
        return new Promise<string>(() => undefined);
      },
    });
    const model = scripted("alpha", [{ blocks: [call("c1", "wait", {})] }]);
    const agent = new AgentSession({ targets: [{ model }], session, tools: [wait] });
    const run = agent.prompt("Go");
    for await (const event of run.events)
      if (event.type === "message_end") setTimeout(() => agent.abort(), 5);
    const result = await run.result;
    expect(result).toMatchObject({ success: false, reason: "aborted", turns: 1 });
    expect(toolSignal?.aborted).toBe(true);
    expect(shape(session).map(([, kind]) => kind)).toEqual(["message:user", "message:assistant"]);
  });

  it("a model that throws out of stream() rejects the result instead of hanging", async () => {
    const session = await memorySession();
    const model = scripted("alpha", []);
    const run = new AgentSession({ targets: [{ model }], session }).prompt("Hi");
    await expect(run.result).rejects.toThrow();
    const seen: string[] = [];
    for await (const event of run.events) seen.push(event.type);
    expect(seen).toEqual(["agent_started", "turn_start", "agent_update"]);
  });
});
