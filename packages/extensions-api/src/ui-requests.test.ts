import { describe, expect, it } from "vitest";
import { ExtensionApiError } from "./errors.js";
import type { ExtensionErrorEvent } from "./events.js";
import type { ExtensionCommandContext, ExtensionContext } from "./extension-api.js";
import { ExtensionRunner, type ExtensionRunnerOptions } from "./runner.js";
import { FakeExtensionHost, ScriptedExtensionUI } from "./test/index.js";
import type { ExtensionUIProvider, UIRequest } from "./ui.js";

/** A runner with one command whose context the test gets to use. */
async function contextOf(options: Partial<ExtensionRunnerOptions> = {}) {
  const errors: ExtensionErrorEvent[] = [];
  let seen: ExtensionCommandContext | undefined;
  const runner = new ExtensionRunner({
    cwd: "/project",
    onError: (error) => errors.push(error),
    generateId: (() => {
      let n = 0;
      return () => `ui-${++n}`;
    })(),
    ...options,
  });
  await runner.addExtension("asker", (arbor) => {
    arbor.registerCommand("grab", {
      description: "hands its context to the test",
      handler: (_args, ctx) => {
        seen = ctx;
      },
    });
  });
  runner.bindHost(await FakeExtensionHost.create());
  await runner.runCommand("grab", "");
  return { runner, errors, ctx: seen as ExtensionCommandContext };
}

/** Every request kind, asked the same way, so each case runs against all of them. */
const ASKS: Array<[string, (ctx: ExtensionContext, signal?: AbortSignal) => Promise<unknown>]> = [
  ["select", (ctx, signal) => ctx.ui.select("Pick", ["a", "b"], { signal, timeoutMs: 5000 })],
  ["confirm", (ctx, signal) => ctx.ui.confirm("Sure?", "really", { signal, timeoutMs: 5000 })],
  ["input", (ctx, signal) => ctx.ui.input("Name", "your name", { signal, timeoutMs: 5000 })],
  ["custom", (ctx, signal) => ctx.ui.custom({ render: () => ["hi"] }, { signal, timeoutMs: 5000 })],
];

describe("ctx.ui without an interactive UI", () => {
  it.each(ASKS)("%s resolves to undefined at once, and hasUI is false", async (_kind, ask) => {
    const none = await contextOf();
    expect(none.ctx.hasUI).toBe(false);
    await expect(ask(none.ctx)).resolves.toBeUndefined();

    const passive = new ScriptedExtensionUI([], { interactive: false });
    const quiet = await contextOf({ ui: passive });
    expect(quiet.ctx.hasUI).toBe(false);
    await expect(ask(quiet.ctx)).resolves.toBeUndefined();
    expect(passive.requests).toEqual([]);
  });

  it("notify without a UI does nothing and does not throw", async () => {
    const { ctx } = await contextOf();
    expect(() => ctx.ui.notify("hello")).not.toThrow();
  });
});

describe("ctx.ui with a scripted UI", () => {
  it("returns each answer to the request of its kind, and the app sees the request", async () => {
    const ui = new ScriptedExtensionUI([
      { select: "b" },
      { confirm: false },
      { input: "" },
      { custom: { n: 3 } },
    ]);
    const { ctx } = await contextOf({ ui });
    expect(ctx.hasUI).toBe(true);
    expect(await ctx.ui.select("Pick", ["a", "b"])).toBe("b");
    expect(await ctx.ui.confirm("Sure?", "really")).toBe(false);
    expect(await ctx.ui.input("Name")).toBe("");
    expect(await ctx.ui.custom<{ n: number }>({ render: () => [] })).toEqual({ n: 3 });
    ui.assertDone();
    expect(ui.requests).toEqual([
      {
        kind: "select",
        id: "ui-1",
        extensionName: "asker",
        timeoutMs: 300_000,
        title: "Pick",
        options: ["a", "b"],
      },
      {
        kind: "confirm",
        id: "ui-2",
        extensionName: "asker",
        timeoutMs: 300_000,
        title: "Sure?",
        message: "really",
      },
      { kind: "input", id: "ui-3", extensionName: "asker", timeoutMs: 300_000, title: "Name" },
      { kind: "custom", id: "ui-4", extensionName: "asker", timeoutMs: 300_000 },
    ]);
  });

  it("treats every malformed answer as no answer", async () => {
    const answers: unknown[] = [];
    const provider: ExtensionUIProvider = {
      interactive: true,
      request: (request: UIRequest) => {
        const bad: Record<string, unknown[]> = {
          select: ["c", "A", 1, null, ["a"]],
          confirm: ["yes", 1, null, {}],
          input: [42, null, { text: "x" }],
        };
        const list = bad[request.kind] ?? [];
        return list[answers.filter((kind) => kind === request.kind).length];
      },
      notify: () => undefined,
    };
    const { ctx } = await contextOf({ ui: provider });
    for (let i = 0; i < 5; i++) {
      expect(await ctx.ui.select("Pick", ["a", "b"])).toBeUndefined();
      answers.push("select");
    }
    for (let i = 0; i < 4; i++) {
      expect(await ctx.ui.confirm("Sure?", "")).toBeUndefined();
      answers.push("confirm");
    }
    for (let i = 0; i < 3; i++) {
      expect(await ctx.ui.input("Name")).toBeUndefined();
      answers.push("input");
    }
  });

  it("resolves to undefined when the app throws, rejects, or the user dismisses", async () => {
    const throwing: ExtensionUIProvider = {
      interactive: true,
      request: () => {
        throw new Error("no terminal");
      },
      notify: () => {
        throw new Error("no footer");
      },
    };
    const a = await contextOf({ ui: throwing });
    await expect(a.ctx.ui.confirm("Sure?", "")).resolves.toBeUndefined();
    expect(() => a.ctx.ui.notify("hi")).not.toThrow();
    const rejecting: ExtensionUIProvider = {
      interactive: true,
      request: () => Promise.reject(new Error("closed")),
      notify: () => undefined,
    };
    const b = await contextOf({ ui: rejecting });
    await expect(b.ctx.ui.select("Pick", ["a"])).resolves.toBeUndefined();
    const dismissed = new ScriptedExtensionUI([{ dismiss: true }]);
    const c = await contextOf({ ui: dismissed });
    await expect(c.ctx.ui.input("Name")).resolves.toBeUndefined();
  });

  it("records notifications with the extension's name and level", async () => {
    const ui = new ScriptedExtensionUI();
    const { ctx } = await contextOf({ ui });
    ctx.ui.notify("saved");
    ctx.ui.notify("careful", "warning");
    expect(ui.notifications).toEqual([
      { extensionName: "asker", message: "saved", level: "info" },
      { extensionName: "asker", message: "careful", level: "warning" },
    ]);
  });
});

describe("cancelling and timing out UI requests", () => {
  it.each(ASKS)(
    "%s: unanswered, it times out to undefined and the app is told to close it",
    async (kind) => {
      const ui = new ScriptedExtensionUI([{ ignore: true }]);
      const withdrawn: boolean[] = [];
      const provider: ExtensionUIProvider = {
        interactive: true,
        request: (request, signal) => {
          signal.addEventListener("abort", () => withdrawn.push(true));
          return ui.request(request, signal);
        },
        notify: () => undefined,
      };
      const { ctx: timed } = await contextOf({ ui: provider, uiTimeoutMs: 30 });
      const started = Date.now();
      const kinds: Record<string, () => Promise<unknown>> = {
        select: () => timed.ui.select("Pick", ["a"]),
        confirm: () => timed.ui.confirm("Sure?", ""),
        input: () => timed.ui.input("Name"),
        custom: () => timed.ui.custom({ render: () => [] }),
      };
      await expect(kinds[kind]?.()).resolves.toBeUndefined();
      expect(Date.now() - started).toBeGreaterThanOrEqual(25);
      expect(withdrawn).toEqual([true]);
    },
  );

  it.each(ASKS)("%s: aborting its signal withdraws it", async (_kind, ask) => {
    const ui = new ScriptedExtensionUI([{ ignore: true }, { ignore: true }]);
    const { ctx } = await contextOf({ ui });
    const controller = new AbortController();
    const pending = ask(ctx, controller.signal);
    setTimeout(() => controller.abort(), 10);
    await expect(pending).resolves.toBeUndefined();
    const already = AbortSignal.abort();
    await expect(ask(ctx, already)).resolves.toBeUndefined();
    expect(ui.requests).toHaveLength(1);
  });

  it("session shutdown withdraws pending requests", async () => {
    const ui = new ScriptedExtensionUI([{ ignore: true }]);
    const { ctx, runner } = await contextOf({ ui });
    const pending = ctx.ui.confirm("Sure?", "");
    await Promise.resolve();
    runner.bindHost(undefined);
    await expect(pending).resolves.toBeUndefined();
  });

  it("the call's own signal (a tool call aborted) withdraws it", async () => {
    const ui = new ScriptedExtensionUI([{ ignore: true }]);
    const runner = new ExtensionRunner({ cwd: "/p", ui });
    let answer: unknown = "unset";
    await runner.addExtension("gate", (arbor) =>
      arbor.on("tool_call", async (_event, ctx) => {
        answer = await ctx.ui.confirm("Run?", "ls");
        return undefined;
      }),
    );
    runner.bindHost(await FakeExtensionHost.create());
    const controller = new AbortController();
    const emitted = runner.emit(
      { type: "tool_call", toolCallId: "1", toolName: "bash", input: {} },
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 10);
    await emitted;
    expect(answer).toBeUndefined();
  });

  it("waiting for the user does not count against the handler timeout", async () => {
    const provider: ExtensionUIProvider = {
      interactive: true,
      request: () => new Promise((resolve) => setTimeout(() => resolve(false), 300)),
      notify: () => undefined,
    };
    const errors: ExtensionErrorEvent[] = [];
    const runner = new ExtensionRunner({
      cwd: "/p",
      ui: provider,
      handlerTimeoutMs: 50,
      onError: (error) => errors.push(error),
    });
    await runner.addExtension("gate", (arbor) =>
      arbor.on("tool_call", async (_event, ctx) =>
        (await ctx.ui.confirm("Run?", "rm -rf build")) === true
          ? undefined
          : { block: true, reason: "the user said no" },
      ),
    );
    runner.bindHost(await FakeExtensionHost.create());
    const outcome = await runner.emit({
      type: "tool_call",
      toolCallId: "1",
      toolName: "bash",
      input: {},
    });
    expect(outcome).toEqual({ blocked: true, reason: "the user said no", extensionName: "gate" });
    expect(errors).toEqual([]);
  });

  it("a handler still times out on its own work after the answer", async () => {
    const ui = new ScriptedExtensionUI([{ confirm: true }]);
    const errors: ExtensionErrorEvent[] = [];
    const runner = new ExtensionRunner({
      cwd: "/p",
      ui,
      handlerTimeoutMs: 40,
      onError: (error) => errors.push(error),
    });
    await runner.addExtension("slow", (arbor) =>
      arbor.on("tool_call", async (_event, ctx) => {
        await ctx.ui.confirm("Run?", "");
        await new Promise(() => undefined);
      }),
    );
    runner.bindHost(await FakeExtensionHost.create());
    await runner.emit({ type: "tool_call", toolCallId: "1", toolName: "bash", input: {} });
    expect(errors.map((error) => error.kind)).toEqual(["timeout"]);
  });
});

describe("malformed UI requests", () => {
  const cases: Array<[string, (ctx: ExtensionContext) => Promise<unknown>, string]> = [
    ["select without options", (ctx) => ctx.ui.select("Pick", []), "ui.select"],
    ["select with an empty option", (ctx) => ctx.ui.select("Pick", ["a", ""]), "ui.select"],
    ["select with an empty title", (ctx) => ctx.ui.select("", ["a"]), "ui.select"],
    ["confirm with a number message", (ctx) => ctx.ui.confirm("Sure?", 3 as never), "ui.confirm"],
    ["input with an object placeholder", (ctx) => ctx.ui.input("Name", {} as never), "ui.input"],
    ["a negative timeout", (ctx) => ctx.ui.confirm("Sure?", "", { timeoutMs: -1 }), "timeoutMs"],
    ["custom without render", (ctx) => ctx.ui.custom({} as never), "ui.custom"],
  ];
  it.each(cases)("%s rejects with invalid_input naming the call", async (_name, ask, what) => {
    const ui = new ScriptedExtensionUI();
    const { ctx } = await contextOf({ ui });
    const error = await ask(ctx).catch((thrown: unknown) => thrown);
    expect(ExtensionApiError.isInstance(error)).toBe(true);
    expect((error as ExtensionApiError).code).toBe("invalid_input");
    expect((error as Error).message).toContain(what);
    expect(ui.requests).toEqual([]);
  });

  it("notify with an empty message or an unknown level throws invalid_input", async () => {
    const ui = new ScriptedExtensionUI();
    const { ctx } = await contextOf({ ui });
    expect(() => ctx.ui.notify("")).toThrow(/ui.notify: the message/);
    expect(() => ctx.ui.notify("x", "loud" as never)).toThrow(/ui.notify: the level/);
    expect(ui.notifications).toEqual([]);
  });
});

describe("ScriptedExtensionUI", () => {
  it("fails loudly on a request past the script or of another kind", async () => {
    const ui = new ScriptedExtensionUI([{ confirm: true }]);
    const { ctx } = await contextOf({ ui });
    expect(await ctx.ui.select("Pick", ["a"])).toBeUndefined();
    expect(await ctx.ui.input("Name")).toBeUndefined();
    expect(ui.problems).toEqual([
      'request #1 (select "Pick") got the scripted answer {"confirm":true}',
      'request #2 (input "Name") was not scripted',
    ]);
    expect(() => ui.assertDone()).toThrow(/scripted UI/);
    const unused = new ScriptedExtensionUI([{ confirm: true }]);
    expect(() => unused.assertDone()).toThrow(/1 scripted answer\(s\) were never asked for/);
  });
});

describe("handlers queued behind a question", () => {
  it("a handler waiting behind another's dialog is not timed out", async () => {
    const provider: ExtensionUIProvider = {
      interactive: true,
      request: () => new Promise((resolve) => setTimeout(() => resolve(true), 200)),
      notify: () => undefined,
    };
    const errors: ExtensionErrorEvent[] = [];
    const runner = new ExtensionRunner({
      cwd: "/p",
      ui: provider,
      handlerTimeoutMs: 40,
      onError: (error) => errors.push(error),
    });
    let queue: Promise<unknown> = Promise.resolve();
    await runner.addExtension("serial", (arbor) =>
      arbor.on("tool_call", (_event, ctx) => {
        const turn = queue.then(async () =>
          (await ctx.ui.confirm("Run?", "")) === true ? undefined : { block: true, reason: "no" },
        );
        queue = turn;
        return turn;
      }),
    );
    runner.bindHost(await FakeExtensionHost.create());
    const call = (id: string) =>
      runner.emit({ type: "tool_call", toolCallId: id, toolName: "bash", input: {} });
    const outcomes = await Promise.all([call("1"), call("2")]);
    expect(outcomes).toEqual([{ blocked: false }, { blocked: false }]);
    expect(errors).toEqual([]);
  });
});

describe("ctx.ui timeouts longer than a timer takes", () => {
  it("are clamped to 2^31 - 1 ms instead of firing at once", async () => {
    const delays: number[] = [];
    const timers = {
      setTimeout: (_callback: () => void, ms: number) => {
        delays.push(ms);
        return delays.length;
      },
      clearTimeout: () => undefined,
    };
    const requests: UIRequest[] = [];
    let answer: (value: unknown) => void = () => undefined;
    const provider: ExtensionUIProvider = {
      interactive: true,
      request: (request: UIRequest) => {
        requests.push(request);
        return new Promise((resolve) => {
          answer = resolve;
        });
      },
      notify: () => undefined,
    };
    const { ctx } = await contextOf({ ui: provider, timers });
    const asked = ctx.ui.input("Name", "", { timeoutMs: 2 ** 40 });
    await Promise.resolve();
    expect(delays).toContain(2 ** 31 - 1);
    expect(delays.every((ms) => ms <= 2 ** 31 - 1)).toBe(true);
    expect(requests[0]?.timeoutMs).toBe(2 ** 31 - 1);
    answer("Ada");
    expect(await asked).toBe("Ada");
  });
});
