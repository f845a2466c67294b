import { describe, expect, it } from "vitest";
import { z } from "zod";
import { addTool, drain, memorySession, recordingSleep, scripted } from "../../test/factories.js";
import { AgentSession } from "../agent-session.js";
import { agentEventSchema } from "./agent-event.js";
import { type AgentResult, agentResultSchema } from "./agent-result.js";

const call = (id: string, name: string, args: Record<string, unknown>) => ({
  type: "toolCall" as const,
  id,
  name,
  arguments: args,
});

/** Runs that end every way a run ends, each drained with its session. */
const runs: Array<{ name: string; start: () => Promise<{ agent: AgentSession; text: string }> }> = [
  {
    name: "a text answer after a tool",
    start: async () => {
      const model = scripted("alpha", [
        { blocks: [call("c1", "add", { a: 1, b: 2 })] },
        {
          blocks: [
            { type: "thinking", thinking: "sum" },
            { type: "text", text: "3" },
          ],
        },
      ]);
      const session = await memorySession();
      return {
        agent: new AgentSession({ targets: [{ model }], session, tools: [addTool] }),
        text: "1+2",
      };
    },
  },
  {
    name: "a delivered report",
    start: async () => {
      const model = scripted("alpha", [
        { blocks: [call("r1", "final_report", { report: { ok: true } })] },
      ]);
      const session = await memorySession();
      const outputSchema = z.object({ ok: z.boolean() });
      return {
        agent: new AgentSession({ targets: [{ model }], session, outputSchema }),
        text: "go",
      };
    },
  },
  {
    name: "retries exhausted",
    start: async () => {
      const errors = Array.from({ length: 5 }, () => ({
        error: { kind: "network_error" as const },
      }));
      const model = scripted("alpha", errors);
      const session = await memorySession();
      const { sleep } = recordingSleep();
      return { agent: new AgentSession({ targets: [{ model }], session, sleep }), text: "hi" };
    },
  },
  {
    name: "an empty answer rejected to exhaustion",
    start: async () => {
      const model = scripted("alpha", ["", "", ""]);
      const session = await memorySession();
      return { agent: new AgentSession({ targets: [{ model }], session }), text: "hi" };
    },
  },
  {
    name: "the turn limit",
    start: async () => {
      // The only turn is the final one: tool calls in it are rejected until retries run out.
      const model = scripted("alpha", [
        { blocks: [call("c1", "add", { a: 1, b: 1 })] },
        { blocks: [call("c2", "add", { a: 1, b: 1 })] },
        { blocks: [call("c3", "add", { a: 1, b: 1 })] },
      ]);
      const session = await memorySession();
      return {
        agent: new AgentSession({ targets: [{ model }], session, tools: [addTool], maxTurns: 1 }),
        text: "hi",
      };
    },
  },
];

describe("run contracts", () => {
  it.each(runs)(
    "every event and the result of $name parse as the schemas say",
    async ({ start }) => {
      const { agent, text } = await start();
      const run = agent.prompt(text);
      const { stamped, result } = await drain(run);
      for (const event of stamped) {
        // Nothing the loop emits is dropped or changed by the schema: the parse is the event.
        expect(agentEventSchema.parse(event)).toEqual(event);
      }
      expect(agentResultSchema.parse(result)).toEqual(result);
      expect(result.session).toEqual({ id: agent.session.id, location: agent.session.location });
      expect(result.sessionFile).toBe(agent.session.location);
      if (!result.success) {
        expect(result.message.length).toBeGreaterThan(0);
        expect(result.finalReport).toEqual({
          status: "failed",
          reason: result.reason,
          message: result.message,
        });
      }
    },
  );

  it("fails an aborted run with reason and message, naming the session by id and location", async () => {
    const model = scripted("alpha", [
      { blocks: [{ type: "text", text: "a long answer" }], chunkSize: 1 },
    ]);
    const session = await memorySession();
    const agent = new AgentSession({ targets: [{ model }], session });
    const run = agent.prompt("hi");
    for await (const event of run.events) if (event.type === "text_delta") agent.abort();
    const result = await run.result;
    expect(result).toMatchObject({
      success: false,
      reason: "aborted",
      message: "The run was aborted before a final answer.",
      session: { id: session.id, location: session.location },
    });
  });

  it("rejects results and events that break the contract", () => {
    const base = {
      runId: "r",
      turns: 1,
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      cost: 0,
      session: { id: "s", location: "memory:s" },
      sessionFile: "memory:s",
    };
    const failed = { status: "failed", reason: "aborted", message: "m" } as const;
    const delivered = { status: "delivered", value: "x", repaired: false } as const;
    const bad: unknown[] = [
      { ...base, success: false, reason: "aborted", finalReport: failed }, // no message
      { ...base, success: false, message: "m", finalReport: failed }, // no reason
      { ...base, success: false, reason: "bored", message: "m", finalReport: failed },
      { ...base, success: true, reason: "aborted", finalReport: delivered },
      { ...base, success: true, finalReport: failed },
      { ...base, session: undefined, success: true, finalReport: delivered },
    ];
    for (const value of bad) expect(agentResultSchema.safeParse(value).success).toBe(false);
    const ok: AgentResult = { ...base, success: true, finalReport: delivered };
    expect(agentResultSchema.parse(ok)).toEqual(ok);

    const ancestry = { runId: "r", sessionId: "s", originId: "r", agentPath: "main" };
    const event = { runId: "r", seq: 1, ancestry, type: "turn_start", turnIndex: 0 };
    expect(agentEventSchema.parse(event)).toEqual(event);
    for (const broken of [
      { ...event, runId: undefined },
      { ...event, seq: 0 },
      { ...event, seq: 1.5 },
      { ...event, type: "turn_begin" },
      { ...event, ancestry: undefined },
      { ...event, ancestry: { ...ancestry, sessionId: "" } },
      { ...event, ancestry: { ...ancestry, originId: undefined } },
      { ...event, ancestry: { ...ancestry, agentPath: "main::child" } },
      { runId: "r", seq: 2, ancestry, type: "text_delta", turnIndex: 0, index: 0 },
    ]) {
      expect(agentEventSchema.safeParse(broken).success).toBe(false);
    }
  });
});
