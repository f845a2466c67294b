import { isEntryOfType } from "@arbor/session-store";
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
import {
  ANCESTRY_CUSTOM_TYPE,
  CHILD_SESSION_CUSTOM_TYPE,
  FINAL_ANSWER_CUSTOM_TYPE,
} from "../orchestration/child-records.js";
import { loadAgentTree } from "../orchestration/load-agent-tree.js";
import { runEventSchema } from "../orchestration/orchestration-events.js";
import { orchestrationResultSchema } from "../orchestration/orchestration-result.js";
import { runAgent } from "./run-agent.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe("runAgent", () => {
  it("runs advisors, then the main agent with their answers as tagged blocks, recording every child", async () => {
    const folder = await agentFolder({
      "main.md": agentFile({ models: "[scripted/main]", advisors: "[./critic.md]" }),
      "critic.md": agentFile({ models: "[scripted/critic]" }),
    });
    cleanups.push(folder.remove);
    const { models, model, store } = scriptedModels({ main: ["Final."], critic: ["Be careful."] });
    const tree = await loadAgentTree(folder.path("main.md"));
    const run = runAgent(tree, "Do it", { store, models, generateNonce: () => "n0nce" });
    const events = await collect(run.events);
    const result = await run.result;
    for (const event of events) expect(runEventSchema.safeParse(event).success).toBe(true);
    expect(orchestrationResultSchema.parse(result)).toEqual(result);
    expect(result.success).toBe(true);
    expect(result.finalAgent).toBe("main");
    expect(result.children.map((c) => [c.agentPath, c.outcome])).toEqual([
      ["main:critic", "succeeded"],
    ]);
    expect(events.map((event) => event.type).slice(0, 2)).toEqual(["child_start", "child_end"]);
    expect(events.at(-1)?.type).toBe("orchestration_end");
    const sent = JSON.stringify(model("main").requests[0]?.messages.at(-1)?.content);
    expect(sent).toContain('<advisory-n0nce agent=\\"critic\\">\\nBe careful.\\n</advisory-n0nce>');
    const root = await store.open(result.session.id);
    expect(customData(root, CHILD_SESSION_CUSTOM_TYPE)).toMatchObject([
      { agent: "critic", outcome: "running" },
      { agent: "critic", outcome: "succeeded", usage: { input: 10, output: 5 } },
    ]);
    const child = await store.open(result.children[0]?.sessionId ?? "");
    expect(customData(child, ANCESTRY_CUSTOM_TYPE)).toMatchObject([
      {
        originId: root.id,
        parentId: root.id,
        agentPath: "main:critic",
        role: "advisor",
        originRunId: result.runId,
        parentRunId: result.runId,
      },
    ]);
    expect(child.getHeader().parentSession).toBe(root.location);
  });

  it("keeps a destination's final answer in the root session, so the router sees it on the next prompt", async () => {
    const folder = await agentFolder({
      "desk.md": agentFile({
        models: "[scripted/desk]",
        router: "{ destinations: [./billing.md] }",
      }),
      "billing.md": agentFile({ models: "[scripted/billing]" }),
    });
    cleanups.push(folder.remove);
    const { models, model, store } = scriptedModels({
      desk: [
        call("router__handoff-to", { agent: "billing" }),
        "You were refunded, as billing said.",
      ],
      billing: ["Refund of 12 EUR sent on 3 May."],
    });
    const tree = await loadAgentTree(folder.path("desk.md"));
    const first = await runAgent(tree, "Where is my refund?", { store, models }).result;
    expect(first.finalAgent).toBe("desk:billing");
    const root = await store.open(first.session.id, { readOnly: true });
    const answers = root
      .getEntries()
      .filter(
        (e) => isEntryOfType(e, "custom_message") && e.customType === FINAL_ANSWER_CUSTOM_TYPE,
      );
    expect(answers).toMatchObject([
      {
        display: false,
        content: expect.stringContaining("Refund of 12 EUR sent on 3 May."),
        details: { agent: "desk:billing", session: first.finalSession.id },
      },
    ]);
    await root.close();
    // The next prompt on the same session: the router's request carries the answer.
    const second = await runAgent(tree, "When was it sent?", {
      store,
      models,
      sessionId: first.session.id,
    }).result;
    expect(second.finalAgent).toBe("desk");
    const sent = JSON.stringify(model("desk").requests.at(-1)?.messages);
    expect(sent).toContain("Refund of 12 EUR sent on 3 May.");
    // An answer of the root itself is not recorded twice.
    const again = await store.open(first.session.id, { readOnly: true });
    expect(
      again
        .getEntries()
        .filter(
          (e) => isEntryOfType(e, "custom_message") && e.customType === FINAL_ANSWER_CUSTOM_TYPE,
        ),
    ).toHaveLength(1);
    await again.close();
  });

  it("rolls the children's tokens and cost up into the result and keeps each child's own", async () => {
    const { models, store } = scriptedModels({
      main: [call("agent__helper", { prompt: "a" }), "Done."],
      helper: [{ blocks: [{ type: "text", text: "ok" }], usage: { input: 100, output: 7 } }],
    });
    const run = runAgent(node("main", [node("helper")]), "Go", { store, models });
    const result = await run.result;
    expect(result.rootUsage).toMatchObject({ input: 20, output: 10 });
    expect(result.children[0]?.usage).toMatchObject({ input: 100, output: 7 });
    expect(result.usage).toMatchObject({ input: 120, output: 17 });
    expect(result.cost).toBeCloseTo(result.rootCost + (result.children[0]?.cost ?? 0), 12);
  });

  it("forwards the root's turn-runner events with its ancestry; children's runs name the root run", async () => {
    const { models, store } = scriptedModels({
      main: [call("agent__helper", { prompt: "a" }), "Done."],
      helper: ["ok"],
    });
    const run = runAgent(node("main", [node("helper")]), "Go", { store, models });
    const events = await collect(run.events);
    const result = await run.result;
    // One stream: every event carries the root run's id; the turn runner's carry their ancestry.
    expect(events.every((event) => event.runId === result.runId)).toBe(true);
    const runEvents = events.filter((event) => "ancestry" in event);
    expect(runEvents.length).toBeGreaterThan(3);
    for (const event of runEvents) {
      expect(event).toMatchObject({ runId: result.runId, ancestry: { agentPath: "main" } });
    }
    const child = await store.open(result.children[0]?.sessionId ?? "");
    const [ancestry] = customData(child, ANCESTRY_CUSTOM_TYPE) as Array<{ runId: string }>;
    expect(ancestry?.runId).not.toBe(result.runId);
  });

  it("refuses a sub-agent already among its ancestors (a cycle through the ancestry) as an error result", async () => {
    const loop = node("loop");
    (loop.agents as AgentNode[]).push(loop);
    const { models, store } = scriptedModels({
      loop: [call("agent__loop", { prompt: "again" }), "I cannot call myself."],
    });
    const result = await runAgent(loop, "Go", { store, models, limits: { depth: 5 } }).result;
    expect(result).toMatchObject({ success: true, children: [] });
    const root = await store.open(result.session.id);
    const results = root
      .getBranch()
      .flatMap((entry) =>
        isEntryOfType(entry, "message") && entry.message.role === "toolResult"
          ? [JSON.stringify(entry.message.content)]
          : [],
      );
    expect(results).toHaveLength(1);
    expect(results[0]).toContain(
      "loop:loop was not started: loop is already running above it (loop); an agent may not start itself through its ancestors",
    );
    expect((await store.list()).sessions).toHaveLength(1);
  });

  it.each([0, 1])(
    "a depth limit of %i refuses children past it before any session exists",
    async (depth) => {
      const { models, store } = scriptedModels({
        main: [call("agent__a", { prompt: "x" }), "main done"],
        a: [call("agent__b", { prompt: "y" }), "a done"],
        b: ["b done"],
      });
      const result = await runAgent(node("main", [node("a", [node("b")])]), "Go", {
        store,
        models,
        limits: { depth },
      }).result;
      expect(result.children.map((child) => child.agentPath)).toEqual(
        depth === 0 ? [] : ["main:a"],
      );
      expect((await store.list()).sessions).toHaveLength(1 + depth);
    },
  );

  it("an aborted signal before the start runs nothing but the root session, which fails with aborted", async () => {
    const { models, model, store } = scriptedModels({ main: [], critic: [] });
    const root = { ...node("main"), advisors: [node("critic")] };
    const controller = new AbortController();
    controller.abort();
    const result = await runAgent(root, "Go", { store, models, signal: controller.signal }).result;
    expect(result).toMatchObject({ success: false, reason: "aborted", children: [] });
    expect(model("main").requests).toHaveLength(0);
  });

  it("stop reaches a running sub-agent, which answers in a final turn; no child starts after it", async () => {
    const { models, store } = scriptedModels({
      main: [
        {
          blocks: [
            { type: "toolCall", id: "a", name: "agent__slow", arguments: { prompt: "1" } },
            { type: "toolCall", id: "b", name: "agent__slow", arguments: { prompt: "2" } },
          ],
        },
        "Main stopped.",
      ],
      slow: [{ blocks: [{ type: "text", text: "slow part" }], delayMs: 100 }, "unused"],
    });
    const run = runAgent(node("main", [node("slow")]), "Go", {
      store,
      models,
      limits: { concurrency: 1 },
    });
    for await (const event of run.events) {
      if (event.type === "child_start") run.stop();
    }
    const result = await run.result;
    expect(result).toMatchObject({ success: true, finalAgent: "main" });
    expect(result.children.map((child) => child.outcome)).toEqual(["succeeded"]);
  });

  it("a definition that names agent files is loaded first; one that names none runs alone", async () => {
    const folder = await agentFolder({ "helper.md": agentFile({ models: "[scripted/helper]" }) });
    cleanups.push(folder.remove);
    const { models, store } = scriptedModels({
      main: [call("agent__helper", { prompt: "x" }), "Done."],
      helper: ["ok"],
      solo: ["Alone."],
    });
    const main = defineAgent({
      name: "main",
      models: ["scripted/main"],
      agents: [folder.path("helper.md")],
    });
    const withChild = await runAgent(main, "Go", { store, models }).result;
    expect(withChild.children.map((child) => child.agentPath)).toEqual(["main:helper"]);
    const solo = await runAgent(defineAgent({ name: "solo", models: ["scripted/solo"] }), "Hi", {
      store,
      models,
    }).result;
    expect(solo).toMatchObject({ success: true, finalAgent: "solo", children: [] });
  });

  it("creates every session of the run for the tenant", async () => {
    const { models, store } = scriptedModels({
      main: [call("agent__helper", { prompt: "x" }), "Done."],
      helper: ["ok"],
    });
    const result = await runAgent(node("main", [node("helper")]), "Go", {
      store,
      models,
      tenant: "acme",
    }).result;
    const listed = await store.list({ tenant: "acme" });
    expect(listed.sessions.map((session) => session.id).sort()).toEqual(
      [result.session.id, result.children[0]?.sessionId].sort(),
    );
    expect((await store.list()).sessions).toHaveLength(0);
  });

  it("rejects the result with the load error of a definition naming a missing file", async () => {
    const { models, store } = scriptedModels({});
    const main = defineAgent({
      name: "main",
      models: ["scripted/main"],
      handoff: "/nonexistent/x.md",
    });
    await expect(runAgent(main, "Go", { store, models }).result).rejects.toThrow(
      "agent definition <inline>: handoff: /nonexistent/x.md: the file does not exist",
    );
  });
});

describe("runAgent sub-agent tool timeout", () => {
  it("a sub-agent call outlasting the parent's tool timeout aborts the child (aborted)", async () => {
    const { models, store } = scriptedModels({
      main: [call("agent__slow", { prompt: "x" }), "gave up"],
      slow: [{ blocks: [{ type: "text", text: "slow slow slow" }], chunkSize: 1, delayMs: 200 }],
    });
    const main = {
      ...node("main"),
      definition: defineAgent({
        name: "main",
        models: ["scripted/main"],
        limits: { toolTimeoutMs: 300 },
      }),
      agents: [node("slow")],
    };
    const result = await runAgent(main, "Go", { store, models }).result;
    expect(result).toMatchObject({ success: true, finalReport: { value: "gave up" } });
    expect(result.children.map((child) => child.outcome)).toEqual(["aborted"]);
  });

  it("a sub-agent with timeoutMs outlives a shorter parent tool timeout and reports timed_out", async () => {
    const { models, store } = scriptedModels({
      main: [call("agent__slow", { prompt: "x" }), "gave up"],
      slow: [{ blocks: [{ type: "text", text: "slow slow slow" }], chunkSize: 1, delayMs: 200 }],
    });
    const slow = {
      ...node("slow"),
      definition: defineAgent({ name: "slow", models: ["scripted/slow"], timeoutMs: 600 }),
    };
    const main = {
      ...node("main"),
      definition: defineAgent({
        name: "main",
        models: ["scripted/main"],
        limits: { toolTimeoutMs: 300 },
      }),
      agents: [slow],
    };
    const result = await runAgent(main, "Go", { store, models }).result;
    expect(result.children.map((child) => child.outcome)).toEqual(["timed_out"]);
  });
});

describe("runAgent sub-agent input schema", () => {
  it.each([
    [{ text: "hello" }, "must have required property 'language'"],
    [{ text: 5, language: "fr" }, "arguments/text must be string"],
    [{ text: "hello", language: "klingon" }, "must be equal to one of the allowed values"],
  ])(
    "arguments that break the child's inputSchema (%j) are an error result; no child starts",
    async (args, problem) => {
      const { models, store } = scriptedModels({
        main: [
          call("agent__translator", args),
          call("agent__translator", { text: "hello", language: "fr" }, "c2"),
          "bonjour it is",
        ],
        translator: ["bonjour"],
      });
      const translator = {
        ...node("translator"),
        definition: defineAgent({
          name: "translator",
          models: ["scripted/translator"],
          inputSchema: {
            type: "object",
            properties: { text: { type: "string" }, language: { enum: ["fr", "de"] } },
            required: ["text", "language"],
          },
        }),
      };
      const result = await runAgent({ ...node("main"), agents: [translator] }, "Go", {
        store,
        models,
      }).result;
      expect(result).toMatchObject({ success: true, finalReport: { value: "bonjour it is" } });
      expect(result.children.map((child) => child.outcome)).toEqual(["succeeded"]);
      const root = await store.open(result.session.id);
      const results = root
        .getBranch()
        .flatMap((entry) =>
          isEntryOfType(entry, "message") && entry.message.role === "toolResult"
            ? [JSON.stringify(entry.message.content)]
            : [],
        );
      expect(results[0]).toContain("Invalid arguments for agent__translator");
      expect(results[0]).toContain(problem);
      expect(results[1]).toContain("bonjour");
    },
  );
});
