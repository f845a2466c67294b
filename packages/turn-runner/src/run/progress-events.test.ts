import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  addTool,
  drain,
  memorySession,
  messageOf,
  recordingSleep,
  scripted,
} from "../../test/factories.js";
import { AgentSession } from "../agent-session.js";
import { defineTool } from "../agent-tool.js";
import type { AgentEventPayload } from "../contracts/index.js";
import { InvalidAgentOptionsError } from "../contracts/index.js";

const call = (id: string, name: string, args: Record<string, unknown>) => ({
  type: "toolCall" as const,
  id,
  name,
  arguments: args,
});

const progress = (events: AgentEventPayload[]) =>
  events.filter((event) => event.type.startsWith("agent_"));

describe("progress events", () => {
  it("a successful run starts with agent_started and ends with agent_finished, one update per turn", async () => {
    const model = scripted("alpha", [{ blocks: [call("c1", "add", { a: 1, b: 2 })] }, "3"]);
    const agent = new AgentSession({
      targets: [{ model }],
      session: await memorySession(),
      tools: [addTool],
      maxTurns: 5,
    });
    const { events, result } = await drain(agent.prompt("1+2"));
    expect(result.success).toBe(true);
    expect(events[0]).toEqual({
      type: "agent_started",
      target: { provider: "alpha", model: "alpha-model" },
      maxTurns: 5,
    });
    expect(progress(events)).toEqual([
      events[0],
      { type: "agent_update", turnIndex: 0, kind: "turn", message: "turn 1 of 5" },
      { type: "agent_update", turnIndex: 1, kind: "turn", message: "turn 2 of 5" },
      { type: "agent_finished", turns: 2, cost: result.cost },
      { type: "agent_end", result },
    ]);
    expect(events.at(-2)?.type).toBe("agent_finished");
  });

  it.each([
    {
      name: "retries exhausted",
      responses: Array.from({ length: 4 }, () => ({ error: { kind: "network_error" as const } })),
      maxTurns: 3,
      reason: "retries_exhausted",
    },
    {
      name: "the turn limit",
      responses: [1, 2, 3].map((n) => ({ blocks: [call(`c${n}`, "add", { a: 1, b: 1 })] })),
      maxTurns: 1,
      reason: "max_turns",
    },
    { name: "empty answers", responses: ["", "", ""], maxTurns: 3, reason: "empty_answer" },
  ])("a run that fails ($name) ends with agent_failed naming the reason", async (example) => {
    const agent = new AgentSession({
      targets: [{ model: scripted("alpha", example.responses) }],
      session: await memorySession(),
      tools: [addTool],
      maxTurns: example.maxTurns,
      sleep: recordingSleep().sleep,
    });
    const { events, result } = await drain(agent.prompt("go"));
    expect(result).toMatchObject({ success: false, reason: example.reason });
    const failed = events.at(-2);
    expect(failed).toEqual({
      type: "agent_failed",
      reason: example.reason,
      message: result.message,
      turns: result.turns,
      cost: result.cost,
    });
    expect(events.filter((event) => event.type === "agent_finished")).toEqual([]);
    expect(events[0]?.type).toBe("agent_started");
  });

  it("an aborted run ends with agent_failed too", async () => {
    const model = scripted("alpha", [
      { blocks: [{ type: "text", text: "a long answer" }], chunkSize: 1 },
    ]);
    const agent = new AgentSession({ targets: [{ model }], session: await memorySession() });
    const run = agent.prompt("hi");
    const types: string[] = [];
    for await (const event of run.events) {
      types.push(event.type);
      if (event.type === "text_delta") agent.abort();
    }
    expect(types.slice(-2)).toEqual(["agent_failed", "agent_end"]);
    expect((await run.result).reason).toBe("aborted");
  });
});

describe("the task_status tool", () => {
  const status = {
    status: "in_progress",
    message: "Reading the configuration files.",
    done: "Listed the project.",
    pending: "Summarize the settings.",
  };

  it("reports the model's status as an agent_update of its turn, beside the other calls", async () => {
    const session = await memorySession();
    const model = scripted("alpha", [
      { blocks: [call("s1", "task_status", status), call("c1", "add", { a: 2, b: 3 })] },
      { blocks: [call("s2", "task_status", { status: "completed", message: "Done." })] },
      "5",
    ]);
    const agent = new AgentSession({
      targets: [{ model }],
      session,
      tools: [addTool],
      taskStatusTool: true,
    });
    const { events, result } = await drain(agent.prompt("2+3"));
    expect(result).toMatchObject({ success: true, turns: 3 });
    const updates = events.filter(
      (event) => event.type === "agent_update" && event.kind === "task_status",
    );
    expect(updates).toEqual([
      {
        type: "agent_update",
        turnIndex: 0,
        kind: "task_status",
        message: status.message,
        taskStatus: status,
      },
      {
        type: "agent_update",
        turnIndex: 1,
        kind: "task_status",
        message: "Done.",
        taskStatus: { status: "completed", message: "Done." },
      },
    ]);
    expect(model.requests[0]?.tools?.map((tool) => tool.name)).toEqual(["add", "task_status"]);
    // The call is answered like any tool's, and the other call of the answer ran.
    const results = session
      .getEntries()
      .map((entry) => messageOf(session, entry.id))
      .filter((message) => message.role === "toolResult");
    expect(results.map((message) => [message.toolName, message.isError])).toEqual([
      ["task_status", false],
      ["add", false],
      ["task_status", false],
    ]);
    expect(messageOf(session, "e3").content).toEqual([{ type: "text", text: "Status noted." }]);
  });

  it.each([
    [{ status: "thinking", message: "x" }],
    [{ status: "in_progress", message: "" }],
    [{ status: "in_progress", message: "   " }],
    [{ status: "in_progress" }],
    [{ status: "in_progress", message: "x".repeat(2_001) }],
    [{ status: "in_progress", message: "ok", mood: "happy" }],
    [{ status: "blocked", message: "ok", done: 42 }],
  ])("answers an invalid status %j with an error result and reports nothing", async (bad) => {
    const session = await memorySession();
    const model = scripted("alpha", [{ blocks: [call("s1", "task_status", bad)] }, "ok"]);
    const agent = new AgentSession({ targets: [{ model }], session, taskStatusTool: true });
    const { events, result } = await drain(agent.prompt("go"));
    expect(result.success).toBe(true);
    expect(events.filter((event) => "kind" in event && event.kind === "task_status")).toEqual([]);
    expect(messageOf(session, "e3")).toMatchObject({ toolName: "task_status", isError: true });
  });

  it("is offered only when asked for, and its name is reserved then", async () => {
    const model = scripted("alpha", ["hi"]);
    const plain = new AgentSession({ targets: [{ model }], session: await memorySession() });
    await drain(plain.prompt("hi"));
    expect(model.requests[0]?.tools).toBeUndefined();
    const own = defineTool({
      name: "task_status",
      description: "mine",
      parameters: z.object({}),
      execute: () => "mine",
    });
    // Without the option a tool of that name is the caller's own.
    expect(
      () => new AgentSession({ targets: [{ model }], session: plain.session, tools: [own] }),
    ).not.toThrow();
    let error: unknown;
    try {
      new AgentSession({
        targets: [{ model }],
        session: plain.session,
        tools: [own],
        taskStatusTool: true,
      });
    } catch (caught) {
      error = caught;
    }
    expect(InvalidAgentOptionsError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ option: "tools" });
    expect((error as Error).message).toMatch(/reserved for task status/);
  });
});
