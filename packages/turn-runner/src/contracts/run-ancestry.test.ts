import { MemorySessionStorage } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import { addTool, drain, memorySession, scripted } from "../../test/factories.js";
import { AgentSession } from "../agent-session.js";
import type { AgentSessionOptions } from "../agent-session-options.js";
import { InvalidAgentOptionsError } from "./agent-errors.js";
import { agentEventSchema } from "./agent-event.js";

const call = (id: string) => ({
  type: "toolCall" as const,
  id,
  name: "add",
  arguments: { a: 1, b: 2 },
});

let nextRun = 0;
const generateRunId = () => `run-${++nextRun}`;

describe("run ancestry", () => {
  it("stamps every event of a top-level run with its run, session, origin and the path main", async () => {
    const session = await memorySession();
    const model = scripted("alpha", [{ blocks: [call("c1")] }, "3"]);
    const agent = new AgentSession({
      targets: [{ model }],
      session,
      tools: [addTool],
      generateRunId,
    });
    const run = agent.prompt("1+2");
    const { stamped, result } = await drain(run);
    expect(result.success).toBe(true);
    expect(stamped.length).toBeGreaterThan(5);
    for (const event of stamped) {
      expect(event.ancestry).toEqual({
        runId: run.runId,
        sessionId: session.id,
        originId: run.runId,
        agentPath: "main",
      });
      expect(event.ancestry).not.toHaveProperty("parentId");
      expect(agentEventSchema.parse(event)).toEqual(event);
    }
  });

  it("carries the origin, parent and agent path a host gives, with each run's own id", async () => {
    const session = await memorySession();
    const model = scripted("alpha", ["one", "two"]);
    const ancestry = {
      originId: "origin-7",
      parentId: "run-parent",
      agentPath: "main:researcher:summarizer",
    };
    const agent = new AgentSession({ targets: [{ model }], session, ancestry, generateRunId });
    const first = await drain(agent.prompt("a"));
    const second = await drain(agent.prompt("b"));
    const runIds = [first, second].map(({ result }) => result.runId);
    expect(new Set(runIds).size).toBe(2);
    for (const [index, { stamped }] of [first, second].entries()) {
      for (const event of stamped) {
        expect(event.ancestry).toEqual({
          runId: runIds[index],
          sessionId: session.id,
          ...ancestry,
        });
      }
    }
    // A caller changing its object later changes nothing.
    ancestry.agentPath = "changed";
    const third = await drain(
      new AgentSession({
        targets: [{ model: scripted("alpha", ["x"]) }],
        session,
        ancestry: { agentPath: "main:writer" },
      }).prompt("c"),
    );
    expect(third.stamped[0]?.ancestry).toMatchObject({
      agentPath: "main:writer",
      originId: third.result.runId,
    });
    expect(first.stamped[0]?.ancestry.agentPath).toBe("main:researcher:summarizer");
  });

  it("names the session a run persists into, a fork's after fork()", async () => {
    const session = await memorySession();
    const model = scripted("alpha", ["one", "two"]);
    const agent = new AgentSession({ targets: [{ model }], session });
    const before = await drain(agent.prompt("a"));
    const leaf = session.getLeafId() as string;
    const forked = await agent.fork(leaf, { storage: new MemorySessionStorage() });
    const after = await drain(agent.prompt("b"));
    expect(before.stamped.every((event) => event.ancestry.sessionId === session.id)).toBe(true);
    expect(forked.id).not.toBe(session.id);
    expect(after.stamped.every((event) => event.ancestry.sessionId === forked.id)).toBe(true);
  });

  it.each([
    [{ originId: "" }, "ancestry.originId", /must not be empty/],
    [{ originId: "has space" }, "ancestry.originId", /spaces/],
    [{ parentId: "line\nbreak" }, "ancestry.parentId", /spaces/],
    [{ parentId: 42 }, "ancestry.parentId", /string/],
    [{ agentPath: "" }, "ancestry.agentPath", /agent names joined/],
    [{ agentPath: "main:" }, "ancestry.agentPath", /agent names joined/],
    [{ agentPath: ":main" }, "ancestry.agentPath", /agent names joined/],
    [{ agentPath: "main::child" }, "ancestry.agentPath", /agent names joined/],
    [{ agentPath: "main child" }, "ancestry.agentPath", /agent names joined/],
    [{ agentPath: "x".repeat(501) }, "ancestry.agentPath", /at most 500/],
    [{ parent: "typo" }, "ancestry.parent", /no option `ancestry.parent`/],
    ["main", "ancestry", /object/],
  ])("refuses ancestry %j, naming %s", async (ancestry, option, message) => {
    const session = await memorySession();
    let error: unknown;
    try {
      new AgentSession({
        targets: [{ model: scripted("alpha", []) }],
        session,
        ancestry,
      } as unknown as AgentSessionOptions);
    } catch (caught) {
      error = caught;
    }
    expect(InvalidAgentOptionsError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "invalid_agent_options", option });
    expect((error as Error).message).toMatch(message);
    expect(session.getEntries()).toEqual([]);
  });
});
