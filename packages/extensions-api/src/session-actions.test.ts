import { describe, expect, it } from "vitest";
import { ExtensionApiError } from "./errors.js";
import type { ExtensionErrorEvent } from "./events.js";
import type { ExtensionCommandContext } from "./extension-api.js";
import { ExtensionRunner, type ExtensionRunnerOptions } from "./runner.js";
import { FakeExtensionHost, FakeSessionActions } from "./test/index.js";

async function commandContext(options: Partial<ExtensionRunnerOptions> = {}) {
  const errors: ExtensionErrorEvent[] = [];
  let seen: ExtensionCommandContext | undefined;
  const runner = new ExtensionRunner({
    cwd: "/project",
    onError: (error) => errors.push(error),
    ...options,
  });
  await runner.addExtension("steer", (arbor) => {
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

const model = { provider: "openai", id: "gpt-5", contextWindow: 400_000 };

describe("session actions in the context", () => {
  it("reads the model, the catalogue and the context usage from the app", async () => {
    const actions = new FakeSessionActions({
      model,
      models: [model, { provider: "anthropic", id: "claude" }],
      usage: { tokens: 1000, contextWindow: 400_000, percent: 0.25 },
    });
    const { ctx } = await commandContext({ sessionActions: actions });
    expect(ctx.model).toEqual(model);
    expect(ctx.models.map((m) => m.id)).toEqual(["gpt-5", "claude"]);
    expect(ctx.getContextUsage()).toEqual({ tokens: 1000, contextWindow: 400_000, percent: 0.25 });
    expect(ctx.isIdle()).toBe(true);
    actions.idle = false;
    expect(ctx.isIdle()).toBe(false);
  });

  it("hands out copies: an extension editing them changes nothing in the app", async () => {
    const actions = new FakeSessionActions({
      model: { ...model },
      usage: { tokens: 1, contextWindow: 2, percent: 50 },
    });
    const { ctx } = await commandContext({ sessionActions: actions });
    (ctx.model as { id: string }).id = "hacked";
    (ctx.models[0] as { id: string }).id = "hacked";
    (ctx.getContextUsage() as { tokens: number }).tokens = 99;
    expect(actions.model()?.id).toBe("gpt-5");
    expect(actions.getContextUsage()?.tokens).toBe(1);
  });

  it("passes every action to the app, with checked arguments", async () => {
    const actions = new FakeSessionActions({ model });
    const { ctx } = await commandContext({ sessionActions: actions });
    expect(await ctx.compact("keep the plan")).toEqual({ status: "compacted" });
    ctx.abort();
    await ctx.waitForIdle();
    expect(await ctx.newSession()).toEqual({ sessionId: "session-1" });
    expect(await ctx.fork("e7")).toEqual({ sessionId: "session-2" });
    expect(await ctx.navigateTree("e3", { summarize: true })).toEqual({ cancelled: false });
    expect(await ctx.navigateTree(null)).toEqual({ cancelled: false });
    expect(actions.calls).toEqual([
      { action: "compact", instructions: "keep the plan" },
      { action: "abort" },
      { action: "waitForIdle" },
      { action: "newSession" },
      { action: "fork", entryId: "e7" },
      { action: "navigateTree", targetId: "e3", options: { summarize: true } },
      { action: "navigateTree", targetId: null, options: {} },
    ]);
  });

  const malformed: Array<[string, (ctx: ExtensionCommandContext) => Promise<unknown>, string]> = [
    ["fork without an id", (ctx) => ctx.fork(""), "fork: the entry id"],
    ["fork with a number", (ctx) => ctx.fork(3 as never), "fork: the entry id"],
    ["navigateTree to a number", (ctx) => ctx.navigateTree(7 as never), "navigateTree: the target"],
    [
      "navigateTree with summarize as text",
      (ctx) => ctx.navigateTree("e1", { summarize: "yes" as never }),
      "navigateTree: the options",
    ],
    [
      "navigateTree with an unknown option",
      (ctx) => ctx.navigateTree("e1", { summarise: true } as never),
      "navigateTree: the options",
    ],
    ["compact with object instructions", (ctx) => ctx.compact({} as never), "compact"],
  ];
  it.each(malformed)("%s rejects with invalid_input before the app", async (_n, act, what) => {
    const actions = new FakeSessionActions();
    const { ctx } = await commandContext({ sessionActions: actions });
    const error = await act(ctx).catch((thrown: unknown) => thrown);
    expect(ExtensionApiError.isInstance(error)).toBe(true);
    expect((error as ExtensionApiError).code).toBe("invalid_input");
    expect((error as Error).message).toContain(what);
    expect(actions.calls).toEqual([]);
  });

  it("without session actions: reads answer conservatively, actions reject with action_unavailable", async () => {
    const { ctx } = await commandContext();
    expect(ctx.model).toBeUndefined();
    expect(ctx.models).toEqual([]);
    expect(ctx.getContextUsage()).toBeUndefined();
    expect(ctx.isIdle()).toBe(true);
    expect(() => ctx.abort()).not.toThrow();
    for (const act of [
      () => ctx.compact(),
      () => ctx.waitForIdle(),
      () => ctx.newSession(),
      () => ctx.fork("e1"),
      () => ctx.navigateTree("e1"),
    ]) {
      const error = await act().catch((thrown: unknown) => thrown);
      expect((error as ExtensionApiError).code).toBe("action_unavailable");
      expect((error as Error).message).toMatch(/not available/);
    }
  });

  it("binds actions later, and unbinds them", async () => {
    const { ctx, runner } = await commandContext();
    const actions = new FakeSessionActions({ model });
    runner.bindSessionActions(actions);
    expect(ctx.model).toEqual(model);
    runner.bindSessionActions(undefined);
    expect(ctx.model).toBeUndefined();
  });

  it("handlers and tools get the reading actions too", async () => {
    const actions = new FakeSessionActions({ model });
    const runner = new ExtensionRunner({ cwd: "/p", sessionActions: actions });
    const seen: unknown[] = [];
    await runner.addExtension("watch", (arbor) => {
      arbor.on("turn_start", (_event, ctx) => {
        seen.push(ctx.model?.id, "newSession" in ctx);
      });
    });
    runner.bindHost(await FakeExtensionHost.create());
    await runner.emit({ type: "turn_start", turnIndex: 0, timestamp: 0 });
    expect(seen).toEqual(["gpt-5", false]);
  });
});

describe("a command's return value", () => {
  async function run(returned: unknown) {
    const errors: ExtensionErrorEvent[] = [];
    const runner = new ExtensionRunner({ cwd: "/p", onError: (error) => errors.push(error) });
    await runner.addExtension("cmd", (arbor) =>
      arbor.registerCommand("go", { description: "", handler: async () => returned as never }),
    );
    runner.bindHost(await FakeExtensionHost.create());
    return { outcome: await runner.runCommand("go", ""), errors };
  }

  it("text becomes the next prompt", async () => {
    expect((await run("Summarize the plan")).outcome).toEqual({
      status: "done",
      prompt: "Summarize the plan",
    });
  });

  it.each([[undefined], [""], ["   "]])("nothing (%j) is done without a prompt", async (value) => {
    const { outcome, errors } = await run(value);
    expect(outcome).toEqual({ status: "done" });
    expect(errors).toEqual([]);
  });

  it.each([[42], [{ prompt: "x" }], [["a"]], [true]])(
    "anything else (%j) is reported and ignored",
    async (value) => {
      const { outcome, errors } = await run(value);
      expect(outcome).toEqual({ status: "done" });
      expect(errors).toMatchObject([
        { extensionName: "cmd", event: "command", kind: "invalid_return" },
      ]);
      expect(errors[0]?.error).toContain("command /go returned");
    },
  );
});
