import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ExtensionErrorEvent, SessionBeforeTreeEvent, ToolResultEvent } from "./events.js";
import type { ExtensionFactory } from "./extension-api.js";
import { ExtensionRunner, type ExtensionRunnerOptions } from "./runner.js";
import { FakeExtensionHost } from "./test/index.js";
import { compactEvent } from "./testing/event-samples.js";
import type { TimerSeam } from "./timeout.js";

function makeRunner(options: Partial<ExtensionRunnerOptions> = {}) {
  const errors: ExtensionErrorEvent[] = [];
  const runner = new ExtensionRunner({
    cwd: "/project",
    handlerTimeoutMs: 200,
    onError: (error) => errors.push(error),
    ...options,
  });
  return { runner, errors };
}

async function withExtensions(
  extensions: Record<string, ExtensionFactory>,
  options: Partial<ExtensionRunnerOptions> = {},
) {
  const made = makeRunner(options);
  for (const [name, factory] of Object.entries(extensions))
    await made.runner.addExtension(name, factory);
  return made;
}

const toolCall = {
  type: "tool_call",
  toolCallId: "c1",
  toolName: "bash",
  input: { cmd: "ls" },
} as const;
const toolResult: ToolResultEvent = {
  type: "tool_result",
  toolCallId: "c1",
  toolName: "bash",
  input: {},
  content: [{ type: "text", text: "original" }],
  isError: false,
};

describe("ExtensionRunner ordering", () => {
  it("calls handlers in extension load order, then in `on` order", async () => {
    const seen: string[] = [];
    const { runner } = await withExtensions({
      first: (arbor) => {
        arbor.on("turn_start", () => void seen.push("first.a"));
        arbor.on("turn_start", () => void seen.push("first.b"));
      },
      second: (arbor) => arbor.on("turn_start", () => void seen.push("second")),
      third: (arbor) => arbor.on("turn_end", () => void seen.push("third")),
    });
    await runner.emit({ type: "turn_start", turnIndex: 0, timestamp: 1 });
    expect(seen).toEqual(["first.a", "first.b", "second"]);
    expect(runner.hasHandlers("turn_start")).toBe(true);
    expect(runner.hasHandlers("session_tree")).toBe(false);
    expect(runner.extensions.map((e) => [e.name, e.events])).toEqual([
      ["first", ["turn_start"]],
      ["second", ["turn_start"]],
      ["third", ["turn_end"]],
    ]);
  });

  it("awaits each handler before calling the next", async () => {
    const seen: string[] = [];
    const { runner } = await withExtensions({
      slow: (arbor) =>
        arbor.on("message_end", async () => {
          await new Promise((done) => setTimeout(done, 10));
          seen.push("slow");
        }),
      fast: (arbor) => arbor.on("message_end", () => void seen.push("fast")),
    });
    await runner.emit({ type: "message_end", message: { role: "assistant" } });
    expect(seen).toEqual(["slow", "fast"]);
  });

  it("hands each handler a context with its name, the cwd and the signal", async () => {
    const controller = new AbortController();
    const contexts: unknown[] = [];
    const { runner } = await withExtensions({
      probe: (arbor) =>
        arbor.on("session_shutdown", (_event, ctx) => {
          contexts.push([ctx.extensionName, ctx.cwd, ctx.signal]);
        }),
    });
    await runner.emit({ type: "session_shutdown", sessionId: "s" }, { signal: controller.signal });
    expect(contexts).toEqual([["probe", "/project", controller.signal]]);
  });
});

describe("ExtensionRunner precedence", () => {
  it("tool_call: the first block wins and stops the chain", async () => {
    const seen: string[] = [];
    const { runner } = await withExtensions({
      allow: (arbor) => arbor.on("tool_call", () => void seen.push("allow")),
      guard: (arbor) =>
        arbor.on("tool_call", (event) => {
          seen.push("guard");
          return event.toolName === "bash" ? { block: true, reason: "no shell" } : undefined;
        }),
      later: (arbor) =>
        arbor.on("tool_call", () => {
          seen.push("later");
          return { block: true, reason: "later reason" };
        }),
    });
    expect(await runner.emit(toolCall)).toEqual({
      blocked: true,
      reason: "no shell",
      extensionName: "guard",
    });
    expect(seen).toEqual(["allow", "guard"]);
    expect(await runner.emit({ ...toolCall, toolName: "read" })).toEqual({
      blocked: true,
      reason: "later reason",
      extensionName: "later",
    });
  });

  it("tool_call: a block without a reason names the extension; no handler means not blocked", async () => {
    const { runner } = await withExtensions({
      guard: (arbor) => arbor.on("tool_call", () => ({ block: true })),
    });
    expect(await runner.emit(toolCall)).toEqual({
      blocked: true,
      reason: "blocked by extension guard",
      extensionName: "guard",
    });
    expect(await makeRunner().runner.emit(toolCall)).toEqual({ blocked: false });
  });

  it("tool_result: replacements chain and the last one wins", async () => {
    const seen: unknown[] = [];
    const { runner } = await withExtensions({
      upper: (arbor) =>
        arbor.on("tool_result", (event) => ({
          content: event.content.map((c) =>
            c.type === "text" ? { ...c, text: c.text.toUpperCase() } : c,
          ),
        })),
      mark: (arbor) =>
        arbor.on("tool_result", (event) => {
          seen.push(event.content);
          return { isError: true, details: { marked: true } };
        }),
      observe: (arbor) =>
        arbor.on("tool_result", (event) => void seen.push([event.isError, event.details])),
    });
    const outcome = await runner.emit(toolResult);
    expect(outcome).toEqual({
      content: [{ type: "text", text: "ORIGINAL" }],
      isError: true,
      details: { marked: true },
      changed: true,
    });
    expect(seen).toEqual([[{ type: "text", text: "ORIGINAL" }], [true, { marked: true }]]);
  });

  it("tool_result: with no handler the result is unchanged", async () => {
    expect(await makeRunner().runner.emit(toolResult)).toEqual({
      content: toolResult.content,
      isError: false,
      details: undefined,
      changed: false,
    });
  });

  it("context: each handler sees the messages the previous one returned", async () => {
    const { runner } = await withExtensions({
      drop: (arbor) => arbor.on("context", (event) => ({ messages: event.messages.slice(1) })),
      add: (arbor) =>
        arbor.on("context", (event) => ({
          messages: [...event.messages, { role: "user", content: "extra" }],
        })),
    });
    const outcome = await runner.emit({
      type: "context",
      messages: [
        { role: "user", content: "a" },
        { role: "user", content: "b" },
      ],
    });
    expect(outcome).toEqual({
      messages: [
        { role: "user", content: "b" },
        { role: "user", content: "extra" },
      ],
      changed: true,
    });
  });

  it("before_agent_start: every message is kept and the system prompt chains", async () => {
    const { runner } = await withExtensions({
      one: (arbor) =>
        arbor.on("before_agent_start", (event) => ({
          systemPrompt: `${event.systemPrompt} +one`,
          message: { customType: "note", content: "from one", display: false },
        })),
      two: (arbor) =>
        arbor.on("before_agent_start", (event) => ({
          systemPrompt: `${event.systemPrompt} +two`,
          message: { customType: "note", content: "from two", display: true },
        })),
    });
    const outcome = await runner.emit({
      type: "before_agent_start",
      prompt: "hi",
      systemPrompt: "base",
    });
    expect(outcome.systemPrompt).toBe("base +one +two");
    expect(outcome.messages.map((m) => m.content)).toEqual(["from one", "from two"]);
  });

  it("session_before_compact: the first cancel wins and stops the chain", async () => {
    const seen: string[] = [];
    const { runner } = await withExtensions({
      summarizer: (arbor) =>
        arbor.on("session_before_compact", () => {
          seen.push("summarizer");
          return { summary: "mine" };
        }),
      veto: (arbor) =>
        arbor.on("session_before_compact", (event) => {
          seen.push(`veto saw ${event.summary}`);
          return { cancel: true };
        }),
      after: (arbor) => arbor.on("session_before_compact", () => void seen.push("after")),
    });
    const outcome = await runner.emit(compactEvent("manual"));
    expect(outcome).toEqual({ cancelled: true, extensionName: "veto" });
    expect(seen).toEqual(["summarizer", "veto saw mine"]);
  });

  it("session_before_compact: supplied summaries chain and the last one wins", async () => {
    const { runner } = await withExtensions({
      first: (arbor) =>
        arbor.on("session_before_compact", () => ({ summary: "first", details: 1 })),
      second: (arbor) =>
        arbor.on("session_before_compact", (event) => ({
          summary: `${event.summary} then second`,
        })),
      quiet: (arbor) => arbor.on("session_before_compact", () => undefined),
    });
    const outcome = await runner.emit(compactEvent("threshold"));
    expect(outcome).toEqual({
      cancelled: false,
      summary: "first then second",
      details: undefined,
      extensionName: "second",
    });
  });

  it("session_before_tree: cancel and summary work as for compaction", async () => {
    const event: SessionBeforeTreeEvent = {
      type: "session_before_tree",
      targetId: "a",
      oldLeafId: "b",
      commonAncestorId: null,
      entriesToSummarize: [],
      userWantsSummary: true,
    };
    const summarizing = await withExtensions({
      s: (arbor) =>
        arbor.on("session_before_tree", () => ({ summary: "left branch", details: { n: 2 } })),
    });
    expect(await summarizing.runner.emit(event)).toEqual({
      cancelled: false,
      summary: "left branch",
      details: { n: 2 },
      extensionName: "s",
    });
    const cancelling = await withExtensions({
      c: (arbor) => arbor.on("session_before_tree", () => ({ cancel: true })),
    });
    expect(await cancelling.runner.emit(event)).toEqual({ cancelled: true, extensionName: "c" });
    expect(await makeRunner().runner.emit(event)).toEqual({ cancelled: false });
  });

  it("observe-only events ignore what handlers return", async () => {
    const { runner, errors } = await withExtensions({
      odd: (arbor) => arbor.on("turn_end", (() => ({ anything: true })) as never),
    });
    expect(
      await runner.emit({
        type: "turn_end",
        turnIndex: 0,
        message: { role: "assistant" },
        toolResults: [],
      }),
    ).toBeUndefined();
    expect(errors).toEqual([]);
  });
});

describe("ExtensionRunner isolation", () => {
  it("reports a handler that throws and goes on with the next", async () => {
    const { runner, errors } = await withExtensions({
      broken: (arbor) =>
        arbor.on("tool_call", () => {
          throw new Error("boom");
        }),
      rejecting: (arbor) => arbor.on("tool_call", () => Promise.reject(new Error("async boom"))),
      guard: (arbor) => arbor.on("tool_call", () => ({ block: true, reason: "guarded" })),
    });
    expect(await runner.emit(toolCall)).toMatchObject({ blocked: true, reason: "guarded" });
    expect(errors).toEqual([
      {
        type: "extension_error",
        extensionName: "broken",
        extensionPath: "inline:broken",
        event: "tool_call",
        kind: "threw",
        error: "the tool_call handler threw: boom",
      },
      expect.objectContaining({
        extensionName: "rejecting",
        kind: "threw",
        error: expect.stringContaining("async boom"),
      }),
    ]);
  });

  it("skips a handler that hangs past the timeout", async () => {
    const seen: string[] = [];
    const { runner, errors } = await withExtensions(
      {
        hangs: (arbor) => arbor.on("tool_call", () => new Promise(() => {})),
        next: (arbor) => arbor.on("tool_call", () => void seen.push("next")),
      },
      { handlerTimeoutMs: 20 },
    );
    expect(await runner.emit(toolCall)).toEqual({ blocked: false });
    expect(seen).toEqual(["next"]);
    expect(errors).toEqual([
      expect.objectContaining({ extensionName: "hangs", kind: "timeout", event: "tool_call" }),
    ]);
  });

  it("uses the injected timer seam for timeouts", async () => {
    const pending: Array<() => void> = [];
    const timers: TimerSeam = {
      setTimeout: (callback) => pending.push(callback),
      clearTimeout: () => {},
    };
    const { runner, errors } = await withExtensions(
      { hangs: (arbor) => arbor.on("session_start", () => new Promise(() => {})) },
      { timers, handlerTimeoutMs: 10_000 },
    );
    const emitted = runner.emit({ type: "session_start", reason: "startup", sessionId: "s" });
    await Promise.resolve();
    expect(pending).toHaveLength(1);
    pending[0]?.();
    await emitted;
    expect(errors).toEqual([
      expect.objectContaining({ kind: "timeout", error: expect.stringContaining("10000 ms") }),
    ]);
  });

  it("reports a return value that fails the event's schema and ignores it", async () => {
    const { runner, errors } = await withExtensions({
      typo: (arbor) => arbor.on("tool_call", (() => ({ blocked: true })) as never),
      wrongType: (arbor) => arbor.on("tool_call", (() => ({ block: "yes" })) as never),
      badMessages: (arbor) =>
        arbor.on("context", (() => ({ messages: [{ content: "no role" }] })) as never),
    });
    expect(await runner.emit(toolCall)).toEqual({ blocked: false });
    expect(await runner.emit({ type: "context", messages: [] })).toEqual({
      messages: [],
      changed: false,
    });
    expect(errors.map((e) => [e.extensionName, e.event, e.kind])).toEqual([
      ["typo", "tool_call", "invalid_return"],
      ["wrongType", "tool_call", "invalid_return"],
      ["badMessages", "context", "invalid_return"],
    ]);
    expect(errors[0]?.error).toContain("blocked");
  });

  it("keeps going when an error listener throws", async () => {
    const seen: string[] = [];
    const { runner } = await withExtensions(
      {
        broken: (arbor) =>
          arbor.on("turn_start", () => {
            throw new Error("x");
          }),
      },
      {
        onError: () => {
          throw new Error("listener broke");
        },
      },
    );
    const off = runner.onError((event) => seen.push(event.extensionName));
    await runner.emit({ type: "turn_start", turnIndex: 1, timestamp: 0 });
    off();
    await runner.emit({ type: "turn_start", turnIndex: 2, timestamp: 0 });
    expect(seen).toEqual(["broken"]);
  });

  it("reports a factory that throws or hangs and drops what it registered", async () => {
    const { runner, errors } = await withExtensions(
      {
        throws: (arbor) => {
          arbor.on("turn_start", () => {});
          arbor.registerTool({
            name: "half",
            description: "",
            parameters: z.object({}),
            execute: () => ({ content: "" }),
          });
          throw new Error("factory failed");
        },
        hangs: () => new Promise(() => {}),
        fine: (arbor) => arbor.on("turn_start", () => {}),
      },
      { handlerTimeoutMs: 20 },
    );
    expect(runner.extensions.map((e) => e.name)).toEqual(["fine"]);
    expect(runner.getTools()).toEqual([]);
    expect(errors.map((e) => [e.extensionName, e.event, e.kind])).toEqual([
      ["throws", "load", "load_failed"],
      ["hangs", "load", "timeout"],
    ]);
  });
});

describe("ExtensionRunner tools and commands", () => {
  const echo = {
    name: "echo",
    description: "Repeats its text",
    parameters: z.object({ text: z.string(), times: z.number().int().default(1) }),
    execute: (args: { text: string; times: number }) => ({ content: args.text.repeat(args.times) }),
  };

  it("collects tools with their JSON schema and runs them with validated arguments", async () => {
    const { runner } = await withExtensions({ tools: (arbor) => arbor.registerTool(echo) });
    expect(runner.getTools()).toEqual([
      {
        name: "echo",
        description: "Repeats its text",
        parameters: echo.parameters,
        jsonSchema: {
          type: "object",
          properties: {
            text: { type: "string" },
            times: {
              type: "integer",
              default: 1,
              minimum: expect.any(Number),
              maximum: expect.any(Number),
            },
          },
          required: ["text"],
        },
        extensionName: "tools",
        extensionPath: "inline:tools",
      },
    ]);
    expect(await runner.executeTool("echo", { text: "ab", times: 2 }, { toolCallId: "t" })).toEqual(
      {
        content: [{ type: "text", text: "abab" }],
        isError: false,
      },
    );
    expect(await runner.executeTool("echo", { text: 3 }, { toolCallId: "t" })).toMatchObject({
      isError: true,
      content: [{ type: "text", text: expect.stringContaining("invalid arguments for echo") }],
    });
    expect(await runner.executeTool("nope", {}, { toolCallId: "t" })).toMatchObject({
      isError: true,
    });
    expect(runner.extensions[0]?.tools).toEqual(["echo"]);
  });

  it("turns a throwing tool into an error result and reports an invalid one", async () => {
    const { runner, errors } = await withExtensions({
      tools: (arbor) => {
        arbor.registerTool({
          name: "fails",
          description: "",
          parameters: z.object({}),
          execute: () => {
            throw new Error("disk full");
          },
        });
        arbor.registerTool({
          name: "invalid",
          description: "",
          parameters: z.object({}),
          execute: () => ({ content: 42 }) as never,
        });
        arbor.registerTool({
          name: "ctx",
          description: "",
          parameters: z.object({}),
          execute: (_args, ctx) => ({
            content: `${ctx.toolCallId} ${ctx.extensionName}`,
            details: { ok: 1 },
          }),
        });
      },
    });
    expect(await runner.executeTool("fails", {}, { toolCallId: "t" })).toEqual({
      content: [{ type: "text", text: "disk full" }],
      isError: true,
    });
    expect(errors).toEqual([]);
    expect(await runner.executeTool("invalid", {}, { toolCallId: "t" })).toMatchObject({
      isError: true,
    });
    expect(errors.map((e) => [e.event, e.kind])).toEqual([["tool", "invalid_return"]]);
    expect(await runner.executeTool("ctx", {}, { toolCallId: "call-9" })).toEqual({
      content: [{ type: "text", text: "call-9 tools" }],
      isError: false,
      details: { ok: 1 },
    });
  });

  it("reports tool and command collisions; the first registration wins", async () => {
    const { runner, errors } = await withExtensions({
      a: (arbor) => {
        arbor.registerTool(echo);
        arbor.registerCommand("hello", { description: "from a", handler: () => {} });
      },
      b: (arbor) => {
        arbor.registerTool({ ...echo, description: "other" });
        arbor.registerCommand("/hello", { description: "from b", handler: () => {} });
      },
    });
    expect(runner.getTools().map((t) => [t.name, t.extensionName])).toEqual([["echo", "a"]]);
    expect(runner.getCommands()).toEqual([
      { name: "hello", description: "from a", extensionName: "a", extensionPath: "inline:a" },
    ]);
    expect(errors.map((e) => [e.extensionName, e.event, e.kind])).toEqual([
      ["b", "tool", "collision"],
      ["b", "command", "collision"],
    ]);
  });

  it("reports malformed registrations", async () => {
    const { runner, errors } = await withExtensions({
      bad: (arbor) => {
        arbor.registerTool({ ...echo, name: "has space" });
        arbor.registerTool({ ...echo, name: "plain", parameters: { type: "object" } as never });
        arbor.registerTool({
          ...echo,
          name: "dated",
          parameters: z.object({ at: z.date() }),
        } as never);
        arbor.registerCommand("two words", { description: "", handler: () => {} });
        arbor.registerCommand("nohandler", { description: "" } as never);
      },
    });
    expect(runner.getTools()).toEqual([]);
    expect(runner.getCommands()).toEqual([]);
    expect(errors.map((e) => e.kind)).toEqual(Array(5).fill("invalid_registration"));
  });

  it("accepts tools registered after loading", async () => {
    let later: (() => void) | undefined;
    const { runner } = await withExtensions({
      lazy: (arbor) => {
        later = () => arbor.registerTool(echo);
      },
    });
    expect(runner.getTools()).toEqual([]);
    later?.();
    expect(runner.getTools().map((t) => t.name)).toEqual(["echo"]);
  });

  it("runs commands and reports the ones that throw", async () => {
    const seen: string[] = [];
    const { runner, errors } = await withExtensions({
      cmds: (arbor) => {
        arbor.registerCommand("say", { description: "", handler: (args) => void seen.push(args) });
        arbor.registerCommand("fail", {
          description: "",
          handler: async () => {
            throw new Error("nope");
          },
        });
      },
    });
    expect(await runner.runCommand("/say", "  hello there ")).toEqual({ status: "done" });
    expect(seen).toEqual(["hello there"]);
    expect(await runner.runCommand("missing", "")).toEqual({ status: "unknown_command" });
    expect(await runner.runCommand("fail", "")).toEqual({
      status: "failed",
      error: "command /fail threw: nope",
    });
    expect(errors.map((e) => [e.event, e.kind])).toEqual([["command", "threw"]]);
  });
});

describe("ExtensionRunner host methods", () => {
  it("forwards session actions to the host and checks their arguments", async () => {
    const host = await FakeExtensionHost.create();
    let api: Parameters<ExtensionFactory>[0] | undefined;
    const { runner } = await withExtensions(
      {
        actor: (arbor) => {
          api = arbor;
        },
      },
      { host },
    );
    if (!api) throw new Error("not loaded");
    await api.sendMessage(
      { customType: "note", content: "hi", display: true },
      { triggerTurn: true },
    );
    await api.sendUserMessage("do it", { deliverAs: "followUp" });
    const entryId = await api.appendEntry("state", { count: 1 });
    await api.setLabel(entryId, "checkpoint");
    await api.setTitle("My session");
    expect(host.calls).toEqual([
      {
        method: "sendMessage",
        message: { customType: "note", content: "hi", display: true },
        options: { triggerTurn: true },
      },
      { method: "sendUserMessage", content: "do it", options: { deliverAs: "followUp" } },
      { method: "appendEntry", customType: "state", data: { count: 1 } },
      { method: "setLabel", entryId, label: "checkpoint" },
      { method: "setTitle", title: "My session" },
    ]);
    expect(api.session.getLabel(entryId)).toBe("checkpoint");
    expect(api.session.getTitle()).toBe("My session");
    expect(api.session.getEntries().map((e) => e.type)).toEqual([
      "custom_message",
      "message",
      "custom",
      "label",
      "session_info",
    ]);
    await expect(
      api.sendMessage({ customType: "", content: "x", display: true }),
    ).rejects.toMatchObject({
      code: "invalid_input",
    });
    await expect(
      api.sendMessage(
        { customType: "n", content: "x", display: true },
        { deliverAs: "later" as never },
      ),
    ).rejects.toMatchObject({
      code: "invalid_input",
    });
    await expect(api.setTitle("   ")).rejects.toMatchObject({ code: "invalid_input" });
    expect(host.calls).toHaveLength(5);
    expect(runner.extensions).toHaveLength(1);
  });

  it("gives copies of session data, so an extension cannot change the session", async () => {
    const host = await FakeExtensionHost.create();
    const id = await host.appendEntry("state", { count: 1 });
    const { runner } = await withExtensions(
      {
        meddler: (arbor) =>
          arbor.on("session_start", (_event, ctx) => {
            const entry = ctx.session.getEntry(id) as { data: { count: number } };
            entry.data.count = 99;
            ctx.session.getEntries().length = 0;
          }),
      },
      { host },
    );
    await runner.emit({ type: "session_start", reason: "resume", sessionId: "s" });
    expect(host.session.getEntry(id)).toMatchObject({ data: { count: 1 } });
    expect(host.session.getEntries()).toHaveLength(1);
  });

  it("rejects session actions while no host is bound, and reports reads in handlers", async () => {
    let api: Parameters<ExtensionFactory>[0] | undefined;
    const { runner, errors } = await withExtensions({
      early: (arbor) => {
        api = arbor;
        arbor.on("session_start", (_e, ctx) => void ctx.session.getLeafId());
      },
    });
    if (!api) throw new Error("not loaded");
    await expect(api.appendEntry("x")).rejects.toMatchObject({ code: "host_unavailable" });
    expect(() => api?.session).toThrow(/no session is active/);
    await runner.emit({ type: "session_start", reason: "startup", sessionId: "s" });
    expect(errors.map((e) => e.kind)).toEqual(["threw"]);
    runner.bindHost(await FakeExtensionHost.create());
    await expect(api.appendEntry("x")).resolves.toEqual(expect.any(String));
  });
});
