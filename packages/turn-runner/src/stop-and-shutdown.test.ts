import type { CustomMessageEntry } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { drain, memorySession, messageOf, scripted, shape } from "../test/factories.js";
import { AgentSession } from "./agent-session.js";
import { defineTool } from "./agent-tool.js";
import type { AgentEvent } from "./contracts/index.js";
import { FINAL_TURN_CUSTOM_TYPE } from "./final-turn.js";
import { STOPPED_TOOL_TEXT } from "./tool-execution.js";

const call = (id: string, name: string) => ({
  type: "toolCall" as const,
  id,
  name,
  arguments: {},
});

/** A tool that runs until its signal fires, reporting when it started and whether it was told. */
function waitingTool() {
  const seen: { started: boolean; signal?: AbortSignal } = { started: false };
  let markStarted: () => void = () => undefined;
  const started = new Promise<void>((resolve) => {
    markStarted = resolve;
  });
  const tool = defineTool({
    name: "wait",
    description: "Waits until told to stop",
    parameters: z.object({}),
    execute: (_args, { signal }) => {
      seen.started = true;
      seen.signal = signal;
      markStarted();
      return new Promise<string>(() => undefined);
    },
  });
  return { tool, seen, started };
}

const kinds = (session: Awaited<ReturnType<typeof memorySession>>) =>
  shape(session).map(([, kind]) => kind);

describe("AgentSession.stop()", () => {
  it("cuts a running tool short and forces a final turn without tools that succeeds", async () => {
    const session = await memorySession();
    const waiting = waitingTool();
    const model = scripted("alpha", [{ blocks: [call("c1", "wait")] }, "Here is what I have."]);
    const agent = new AgentSession({ targets: [{ model }], session, tools: [waiting.tool] });

    const run = agent.prompt("Go");
    await waiting.started;
    agent.stop();
    const { events, result } = await drain(run);

    expect(result).toMatchObject({ success: true, turns: 2 });
    expect(waiting.seen.signal?.aborted).toBe(true);
    expect(kinds(session)).toEqual([
      "message:user",
      "message:assistant",
      "message:toolResult",
      `custom_message:${FINAL_TURN_CUSTOM_TYPE}`,
      "message:assistant",
    ]);
    expect(messageOf(session, "e3")).toMatchObject({
      toolCallId: "c1",
      isError: true,
      content: [{ type: "text", text: STOPPED_TOOL_TEXT }],
    });
    const notice = session.getEntry("e4") as CustomMessageEntry;
    expect(notice.display).toBe(false);
    expect(notice.content).toContain("no tool is available");
    // The final request offers no tools and ends with the hidden instruction.
    const finalRequest = model.requests[1];
    expect(finalRequest?.tools).toBeUndefined();
    expect(finalRequest?.messages.at(-1)).toMatchObject({ role: "user" });
    expect(events).toContainEqual({ type: "final_turn", turnIndex: 1, reason: "stop" });
  });

  it("does not run the tool calls of an answer that was streaming when stop came", async () => {
    const session = await memorySession();
    const waiting = waitingTool();
    const model = scripted("alpha", [
      {
        blocks: [{ type: "text", text: "Let me wait for it." }, call("c1", "wait")],
        chunkSize: 2,
        delayMs: 2,
      },
      "Stopping here.",
    ]);
    const agent = new AgentSession({ targets: [{ model }], session, tools: [waiting.tool] });
    const run = agent.prompt("Go");
    const events: AgentEvent[] = [];
    for await (const event of run.events) {
      events.push(event);
      // Stop at the first delta of the answer.
      if (event.type === "text_delta" && events.filter((e) => e.type === "text_delta").length === 1)
        agent.stop();
    }
    const result = await run.result;

    expect(result).toMatchObject({ success: true, turns: 2 });
    expect(waiting.seen.started).toBe(false);
    // The answer that was streaming is kept whole, its call answered with the stop notice.
    expect(messageOf(session, "e2")).toMatchObject({ stopReason: "tool_use" });
    expect(messageOf(session, "e3")).toMatchObject({ toolCallId: "c1", isError: true });
    expect(messageOf(session, "e5").content).toEqual([{ type: "text", text: "Stopping here." }]);
  });

  it("lets a streaming final answer finish without an extra turn", async () => {
    const session = await memorySession();
    const model = scripted("alpha", [{ blocks: [{ type: "text", text: "abcdef" }], chunkSize: 1 }]);
    const agent = new AgentSession({ targets: [{ model }], session });
    const run = agent.prompt("Go");
    for await (const event of run.events) if (event.type === "text_delta") agent.stop();
    const result = await run.result;
    expect(result).toMatchObject({ success: true, turns: 1 });
    expect(kinds(session)).toEqual(["message:user", "message:assistant"]);
    expect(messageOf(session, "e2").content).toEqual([{ type: "text", text: "abcdef" }]);
  });

  it("cuts a backoff wait short and makes the retried attempt the final turn", async () => {
    const session = await memorySession();
    const model = scripted("alpha", [{ error: { kind: "network_error" } }, "Final."]);
    const agent = new AgentSession({
      targets: [{ model }],
      session,
      tools: [waitingTool().tool],
      retryDelayMs: 60_000,
    });
    const run = agent.prompt("Go");
    const started = Date.now();
    for await (const event of run.events) if (event.type === "retry") agent.stop();
    const result = await run.result;

    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result).toMatchObject({ success: true, turns: 1 });
    expect(model.requests[1]?.tools).toBeUndefined();
    expect(kinds(session)).toEqual([
      "message:user",
      "custom:arbor.failover",
      `custom_message:${FINAL_TURN_CUSTOM_TYPE}`,
      "message:assistant",
    ]);
  });

  it("is a no-op when nothing runs", async () => {
    const session = await memorySession();
    const model = scripted("alpha", ["Hi"]);
    const agent = new AgentSession({ targets: [{ model }], session });
    agent.stop();
    const { result } = await drain(agent.prompt("Hello"));
    expect(result).toMatchObject({ success: true, turns: 1 });
    expect(kinds(session)).toEqual(["message:user", "message:assistant"]);
  });
});

describe("AgentSession.abort() waits", () => {
  it("cuts a backoff wait short", async () => {
    const session = await memorySession();
    const model = scripted("alpha", [{ error: { kind: "timeout" } }]);
    const agent = new AgentSession({ targets: [{ model }], session, retryDelayMs: 60_000 });
    const run = agent.prompt("Go");
    const started = Date.now();
    for await (const event of run.events) if (event.type === "retry") agent.abort();
    expect(await run.result).toMatchObject({ success: false, reason: "aborted", turns: 1 });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(model.remaining).toBe(0);
  });
});

describe("AgentSession.shutdown()", () => {
  it("ends a streaming answer at once, keeps the partial answer and closes what it owns", async () => {
    const session = await memorySession();
    const closed: string[] = [];
    const model = scripted("alpha", [
      { blocks: [{ type: "text", text: "one two three four" }], chunkSize: 4, delayMs: 5 },
    ]);
    const agent = new AgentSession({
      targets: [{ model }],
      session,
      ownsSession: true,
      resources: [{ close: () => void closed.push("mcp") }],
    });
    const run = agent.prompt("Count");
    const seen: AgentEvent[] = [];
    let shutdown: Promise<void> | undefined;
    for await (const event of run.events) {
      seen.push(event);
      if (event.type === "text_delta" && !shutdown) shutdown = agent.shutdown();
    }
    await shutdown;
    const result = await run.result;

    expect(result).toMatchObject({ success: false, reason: "shutdown", turns: 1 });
    expect(messageOf(session, "e2")).toMatchObject({
      stopReason: "aborted",
      content: [{ type: "text", text: "one " }],
    });
    expect(closed).toEqual(["mcp"]);
    await expect(Promise.resolve().then(() => session.appendSessionInfo("after"))).rejects.toThrow(
      /closed/,
    );
    expect(() => agent.prompt("Again")).toThrow(/shut down/);
    expect(seen.at(-1)).toMatchObject({ type: "agent_end", result: { reason: "shutdown" } });
  });

  it("tells a running tool and fails with reason shutdown", async () => {
    const session = await memorySession();
    const waiting = waitingTool();
    const model = scripted("alpha", [{ blocks: [call("c1", "wait")] }]);
    const agent = new AgentSession({ targets: [{ model }], session, tools: [waiting.tool] });
    const run = agent.prompt("Go");
    await waiting.started;
    await agent.shutdown();
    expect(await run.result).toMatchObject({ success: false, reason: "shutdown" });
    expect(waiting.seen.signal?.aborted).toBe(true);
    expect(kinds(session)).toEqual(["message:user", "message:assistant"]);
    // The caller's session stays open unless the agent owns it.
    await expect(session.appendSessionInfo("still open")).resolves.toBeTypeOf("string");
  });

  it("reports resources that fail to close after closing the others", async () => {
    const session = await memorySession();
    const closed: string[] = [];
    const agent = new AgentSession({
      targets: [{ model: scripted("alpha", []) }],
      session,
      resources: [
        {
          close: () => {
            throw new Error("socket stuck");
          },
        },
        { close: async () => void closed.push("second") },
      ],
    });
    await expect(agent.shutdown()).rejects.toThrow(/1 resource\(s\) failed to close/);
    expect(closed).toEqual(["second"]);
    await expect(agent.shutdown()).resolves.toBeUndefined();
  });
});
