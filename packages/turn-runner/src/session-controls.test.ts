import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemorySessionStorage, openSessionFile } from "@arbor/session-store";
import { afterEach, describe, expect, it } from "vitest";
import { drain, memorySession, messageOf, scripted, shape } from "../test/factories.js";
import { AgentSession } from "./agent-session.js";

const kinds = (session: Awaited<ReturnType<typeof memorySession>>) =>
  shape(session).map(([, kind]) => kind);

describe("AgentSession.setModel()", () => {
  it("sends later requests to the chosen target and stores a model_change", async () => {
    const session = await memorySession();
    const alpha = scripted("alpha", ["from alpha"]);
    const beta = scripted("beta", ["from beta", "beta again"]);
    const agent = new AgentSession({ targets: [{ model: alpha }, { model: beta }], session });

    await drain(agent.prompt("One"));
    const changeId = await agent.setModel(beta);
    await drain(agent.prompt("Two"));

    expect(session.getEntry(changeId)).toMatchObject({
      type: "model_change",
      provider: "beta",
      modelId: "beta-model",
    });
    expect(messageOf(session, session.getLeafId() as string)).toMatchObject({
      provider: "beta",
      content: [{ type: "text", text: "from beta" }],
    });
    expect(agent.model).toBe(beta);

    // A new agent over the same session picks the chosen model again.
    const resumed = new AgentSession({ targets: [{ model: alpha }, { model: beta }], session });
    expect(resumed.model).toBe(beta);
    await drain(resumed.prompt("Three"));
    expect(messageOf(session, session.getLeafId() as string).provider).toBe("beta");
    expect(alpha.remaining).toBe(0);
  });

  it("adds a model that is not a target yet", async () => {
    const session = await memorySession();
    const alpha = scripted("alpha", []);
    const gamma = scripted("gamma", ["from gamma"]);
    const agent = new AgentSession({ targets: [{ model: alpha }], session });
    await agent.setModel(gamma);
    const { result } = await drain(agent.prompt("Hi"));
    expect(result.success).toBe(true);
    expect(messageOf(session, session.getLeafId() as string).provider).toBe("gamma");
  });

  it("refuses to switch while a prompt runs", async () => {
    const session = await memorySession();
    const alpha = scripted("alpha", [{ blocks: [{ type: "text", text: "slow" }], delayMs: 20 }]);
    const agent = new AgentSession({ targets: [{ model: alpha }], session });
    const run = agent.prompt("Hi");
    await expect(agent.setModel(scripted("beta", []))).rejects.toThrow(/while a prompt runs/);
    await expect(agent.setThinkingLevel("high")).rejects.toThrow(/while a prompt runs/);
    await drain(run);
    expect(kinds(session)).toEqual(["message:user", "message:assistant"]);
  });
});

describe("AgentSession.setThinkingLevel()", () => {
  it("stores a thinking_level_change and sends the level as reasoning", async () => {
    const session = await memorySession();
    const model = scripted("alpha", ["a", "b", "c"]);
    const agent = new AgentSession({ targets: [{ model }], session });

    await drain(agent.prompt("Default"));
    const id = await agent.setThinkingLevel("high");
    await drain(agent.prompt("Think"));
    await agent.setThinkingLevel("off");
    await drain(agent.prompt("Quick"));

    expect(session.getEntry(id)).toMatchObject({
      type: "thinking_level_change",
      thinkingLevel: "high",
    });
    expect(model.requests.map((request) => request.reasoning)).toEqual([undefined, "high", "off"]);
    expect(agent.thinkingLevel).toBe("off");
  });

  it("rejects a level it does not know, storing nothing", async () => {
    const session = await memorySession();
    const agent = new AgentSession({ targets: [{ model: scripted("alpha", []) }], session });
    // A caller without type checking may pass anything.
    await expect(agent.setThinkingLevel("extreme" as "high")).rejects.toThrow(
      /unknown thinking level "extreme"/,
    );
    expect(session.getEntries()).toEqual([]);
  });
});

describe("AgentSession.fork()", () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  it("continues in a new session file beside the old one, leaving the old one as it was", async () => {
    const dir = await mkdtemp(join(tmpdir(), "arbor-fork-"));
    dirs.push(dir);
    const original = await openSessionFile(join(dir, "chat.jsonl"), { create: true });
    const model = scripted("alpha", ["first answer", "second answer", "forked answer"]);
    const agent = new AgentSession({ targets: [{ model }], session: original });
    await drain(agent.prompt("First"));
    const firstAnswer = original.getLeafId() as string;
    await drain(agent.prompt("Second"));
    const originalEntries = original.getEntries().length;

    const forked = await agent.fork(firstAnswer);
    const { result } = await drain(agent.prompt("Instead"));

    expect(agent.session).toBe(forked);
    expect(result.sessionFile).toBe(forked.location);
    expect(forked.location).not.toBe(original.location);
    expect(forked.getHeader().parentSession).toBe(original.location);
    expect(forked.buildSessionContext().messages.map((m) => m.content)).toEqual([
      "First",
      [{ type: "text", text: "first answer" }],
      "Instead",
      [{ type: "text", text: "forked answer" }],
    ]);
    expect(original.getEntries()).toHaveLength(originalEntries);
    expect(model.requests[2]?.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect((await readdir(dir)).filter((name) => name.endsWith(".jsonl"))).toHaveLength(2);

    // The agent owns the fork: shutdown closes it; the caller's session stays open.
    await agent.shutdown();
    // Closed: appending fails (synchronously or as a rejection, either is a failure).
    await expect(Promise.resolve().then(() => forked.appendSessionInfo("x"))).rejects.toThrow(
      /closed/,
    );
    await expect(original.appendSessionInfo("still mine")).resolves.toBeTypeOf("string");
    await original.close();
  });

  it("forks an in-memory session into the given storage", async () => {
    const session = await memorySession();
    const agent = new AgentSession({ targets: [{ model: scripted("alpha", ["one"]) }], session });
    await drain(agent.prompt("Hi"));
    const forked = await agent.fork("e1", { storage: new MemorySessionStorage() });
    expect(forked.getEntries().map((entry) => entry.id)).toEqual(["e1"]);
    await expect(agent.fork("missing", { storage: new MemorySessionStorage() })).rejects.toThrow();
  });
});

describe("AgentSession.prompt() with images", () => {
  const png = { type: "image" as const, data: "iVBORw0KGgo=", mimeType: "image/png" };

  it("stores the text and the images in the user message and sends them", async () => {
    const session = await memorySession();
    const model = scripted("alpha", ["A red dot."]);
    const agent = new AgentSession({ targets: [{ model }], session });
    const { result } = await drain(agent.prompt("What is this?", [png]));
    expect(result.success).toBe(true);
    expect(messageOf(session, "e1").content).toEqual([
      { type: "text", text: "What is this?" },
      png,
    ]);
    expect(model.requests[0]?.messages[0]).toEqual({
      role: "user",
      content: [{ type: "text", text: "What is this?" }, png],
    });
  });

  it("keeps a plain string when no image is given", async () => {
    const session = await memorySession();
    const agent = new AgentSession({ targets: [{ model: scripted("alpha", ["ok"]) }], session });
    await drain(agent.prompt("Hi", []));
    expect(messageOf(session, "e1").content).toBe("Hi");
  });

  it("rejects bad images before anything is stored or sent", async () => {
    const session = await memorySession();
    const model = scripted("alpha", []);
    const agent = new AgentSession({ targets: [{ model }], session });
    expect(() => agent.prompt("x", [{ ...png, mimeType: "text/html" }])).toThrow(
      /images\[0\]\.mimeType is "text\/html"/,
    );
    expect(() => agent.prompt("x", [{ ...png, data: "data:image/png;base64,AAAA" }])).toThrow(
      /without a "data:" prefix/,
    );
    expect(() => agent.prompt("x", [{ type: "image", data: 42 } as unknown as typeof png])).toThrow(
      /invalid images/,
    );
    expect(session.getEntries()).toEqual([]);
    expect(model.requests).toEqual([]);
    expect(agent.running).toBe(false);
  });
});
