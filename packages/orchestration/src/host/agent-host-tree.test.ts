import { AgentBusyError } from "@arbor/turn-runner";
import { afterEach, describe, expect, it } from "vitest";
import {
  agentFile,
  agentFolder,
  call,
  collect,
  customData,
  node,
  scriptedModels,
} from "../../test/orchestration-fixtures.js";
import { defineAgent } from "../definition/index.js";
import type { AgentNode } from "../orchestration/agent-tree.js";
import { CHILD_SESSION_CUSTOM_TYPE } from "../orchestration/child-records.js";
import { loadAgentTree } from "../orchestration/load-agent-tree.js";
import { type RunEvent, runEventSchema } from "../orchestration/orchestration-events.js";
import { AgentHost } from "./agent-host.js";

// AgentHost.open({ agent }) runs an agent tree whole on every prompt: the one way apps
// drive an agent, whether it is one agent or a team.

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe("AgentHost with an agent tree", () => {
  it("runs a definition's advisors and sub-agents through the host, streaming one sequence", async () => {
    const folder = await agentFolder({
      "gardener.md": agentFile({
        name: "gardener",
        models: "[scripted/gardener]",
        advisors: "[./critic.md]",
        agents: "[./digger.md]",
      }),
      "critic.md": agentFile({ name: "critic", models: "[scripted/critic]" }),
      "digger.md": agentFile({ name: "digger", models: "[scripted/digger]" }),
    });
    cleanups.push(folder.remove);
    const { models, store } = scriptedModels({
      gardener: [call("agent__digger", { prompt: "dig" }), "Planted."],
      critic: ["Mind the roots."],
      digger: ["Dug."],
    });
    const host = await AgentHost.open({
      store,
      create: { cwd: "/garden" },
      agent: await loadAgentTree(folder.path("gardener.md")),
      models,
    });
    const run = host.prompt("Plant a tree");
    expect(host.state().busy).toBe("prompt");
    expect(() => host.prompt("again")).toThrow(AgentBusyError);
    const events = await collect(run.events);
    const result = await run.result;
    expect(result.success).toBe(true);
    expect(result.finalAgent).toBe("gardener");
    expect(result.children.map((child) => [child.agentPath, child.role, child.outcome])).toEqual([
      ["gardener:critic", "advisor", "succeeded"],
      ["gardener:digger", "subagent", "succeeded"],
    ]);
    // One stream: every event valid, the run's id on each, seq 1, 2, 3, … without a gap.
    for (const event of events) expect(runEventSchema.safeParse(event).success).toBe(true);
    expect(events.every((event) => event.runId === run.runId)).toBe(true);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect(events.at(-1)?.type).toBe("orchestration_end");
    // The root's own events name the definition, not `main`.
    const own = events.filter((event) => "ancestry" in event);
    expect(own.length).toBeGreaterThan(0);
    for (const event of own) {
      if (!("ancestry" in event)) continue;
      expect(event.ancestry).toMatchObject({ agentPath: "gardener", runId: run.runId });
    }
    // Children name the run that started them and their own run.
    const started = events.filter((event) => event.type === "child_start");
    expect(started).toHaveLength(2);
    for (const event of started) {
      if (event.type !== "child_start") continue;
      expect(event.parentRunId).toBe(run.runId);
      expect(event.childRunId).not.toBe(run.runId);
      expect(event.parentSessionId).toBe(host.session.id);
    }
    // The children live in sessions of the host's store, linked to the host's session.
    const children = customData(host.session, CHILD_SESSION_CUSTOM_TYPE);
    expect(children).toHaveLength(4);
    const child = await store.open(result.children[1]?.sessionId ?? "");
    expect(child.getHeader().parentSession).toBe(host.session.location);
    await child.close();
    // Usage rolls up over the root and its children.
    expect(result.usage.input).toBe(
      result.rootUsage.input + result.children.reduce((sum, c) => sum + c.usage.input, 0),
    );
    await host.close();
  });

  it("keeps the tree across prompts and replays a run's events from a seq", async () => {
    const { models, store } = scriptedModels({
      desk: [call("agent__reader", { prompt: "one" }), "First.", "Second, alone."],
      reader: ["Read."],
    });
    const host = await AgentHost.open({
      store,
      create: { cwd: "/p" },
      agent: node("desk", [node("reader")]),
      models,
    });
    const first = host.prompt("Look it up");
    const all = await collect(first.events);
    await first.result;
    const replayed = await collect(first.subscribe({ afterSeq: 3 }));
    expect(replayed).toEqual(all.slice(3));
    const second = host.prompt("Anything else?");
    const result = await second.result;
    expect(result.success).toBe(true);
    expect(result.children).toEqual([]);
    expect(second.runId).not.toBe(first.runId);
    await host.close();
  });

  it("hands a router's request to its destination, announced by a handoff event", async () => {
    const { models, store } = scriptedModels({
      front: [call("router__handoff-to", { agent: "billing", message: "refund" })],
      billing: ["Refunded."],
    });
    const host = await AgentHost.open({
      store,
      create: { cwd: "/p" },
      agent: node("front", [], [node("billing")]),
      models,
    });
    const run = host.prompt("I want my money back");
    const events = await collect(run.events);
    const result = await run.result;
    expect(result.finalAgent).toBe("front:billing");
    const handoff = events.find((event) => event.type === "handoff");
    expect(handoff).toMatchObject({
      role: "destination",
      from: "front",
      to: "front:billing",
      message: "refund",
    });
    const handoffAt = events.indexOf(handoff as RunEvent);
    expect(events[handoffAt + 1]).toMatchObject({
      type: "child_start",
      agentPath: "front:billing",
    });
    await host.close();
  });

  it("lets a router hand on in its forced final turn: the handoff tool stays offered", async () => {
    const { models, model, store } = scriptedModels({
      front: [call("router__handoff-to", { agent: "billing" })],
      billing: ["Refunded."],
    });
    const front = node("front", [], [node("billing")]);
    // One turn allowed: the router's first turn is its forced final turn.
    const limited: AgentNode = {
      ...front,
      definition: defineAgent({ ...front.definition, limits: { maxTurns: 1 } }),
    };
    const host = await AgentHost.open({ store, create: { cwd: "/p" }, agent: limited, models });
    const run = host.prompt("Refund me");
    const events = await collect(run.events);
    const result = await run.result;
    expect(events.find((event) => event.type === "final_turn")).toBeDefined();
    expect((model("front").requests[0]?.tools ?? []).map((tool) => tool.name)).toEqual([
      "router__handoff-to",
    ]);
    expect(result).toMatchObject({ success: true, finalAgent: "front:billing" });
    await host.close();
  });

  it("aborts every agent of the tree from the host, and close waits for the children", async () => {
    const { models, store } = scriptedModels({
      desk: [call("agent__slow", { prompt: "wait" }), "never"],
      // The child streams slowly, a character a second: only the abort ends it.
      slow: [{ blocks: [{ type: "text", text: "x".repeat(600) }], chunkSize: 1, delayMs: 1_000 }],
    });
    const host = await AgentHost.open({
      store,
      create: { cwd: "/p" },
      agent: node("desk", [node("slow")]),
      models,
    });
    const run = host.prompt("Go");
    for await (const event of run.subscribe()) {
      if (event.type === "child_start") break;
    }
    host.abort();
    const result = await run.result;
    expect(result.success).toBe(false);
    expect(result.children.map((child) => child.outcome)).toEqual(["aborted"]);
    await host.close();
    expect(host.state().closed).toBe(true);
  });

  it("runs a single agent as before, with its name as agent path", async () => {
    const { models, store } = scriptedModels({ gardener: ["Hello."] });
    const host = await AgentHost.open({
      store,
      create: { cwd: "/p" },
      agent: defineAgent({ name: "gardener", models: ["scripted/gardener"] }),
      models,
    });
    const run = host.prompt("Hi");
    const events = await collect(run.events);
    const result = await run.result;
    expect(result).toMatchObject({ success: true, finalAgent: "gardener", children: [] });
    expect(events.at(-1)?.type).toBe("agent_end");
    for (const event of events) {
      if ("ancestry" in event) expect(event.ancestry.agentPath).toBe("gardener");
    }
    await host.close();
  });
});
