import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ExtensionApiError } from "../src/errors.js";
import type { ExtensionErrorEvent } from "../src/events.js";
import { guardExtensionFailures, type ProcessFailureEvent } from "../src/failure-guard.js";
import { ExtensionRunner, type ExtensionRunnerOptions } from "../src/runner.js";
import { FakeExtensionHost } from "../src/test/index.js";

const fixture = (name: string) =>
  fileURLToPath(new URL(`./fixtures/hostile/${name}`, import.meta.url));

type Hostile = typeof globalThis & {
  __hostile?: unknown[];
  __hostileDone?: () => void;
  __busyMs?: number;
};

function makeRunner(options: Partial<ExtensionRunnerOptions> = {}) {
  const errors: ExtensionErrorEvent[] = [];
  const runner = new ExtensionRunner({
    cwd: process.cwd(),
    onError: (error) => errors.push(error),
    ...options,
  });
  return { runner, errors };
}

/** Waits until `check` holds, polling; fails after 10 s. */
async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("the condition did not hold within 10 s");
    await new Promise((done) => setTimeout(done, 10));
  }
}

const turnStart = { type: "turn_start", turnIndex: 0, timestamp: 0 } as const;
const toolCall = { type: "tool_call", toolCallId: "c", toolName: "bash", input: {} } as const;

describe("stray failures of extensions, with the guard installed", () => {
  const events: ProcessFailureEvent[] = ["unhandledRejection", "uncaughtException"];
  let saved: Map<ProcessFailureEvent, Array<(...args: unknown[]) => void>>;
  let unguard: () => void;
  let unattributed: unknown[];

  beforeEach(() => {
    // The test runner's own listeners would fail the test on any stray rejection; the
    // guard stands in for them here, as it does in the app.
    saved = new Map(
      events.map((event) => [
        event,
        process.listeners(event as "unhandledRejection") as Array<(...a: unknown[]) => void>,
      ]),
    );
    for (const event of events) process.removeAllListeners(event);
    unattributed = [];
    unguard = guardExtensionFailures(process, {
      onUnattributed: (error) => unattributed.push(error),
    });
  });
  afterEach(() => {
    unguard();
    const target = process as unknown as { on(event: string, l: (...a: unknown[]) => void): void };
    for (const [event, listeners] of saved) for (const l of listeners) target.on(event, l);
  });

  it("reports rejections from timers, un-awaited handler work and factories, naming the extension; the session goes on", async () => {
    const { runner, errors } = makeRunner();
    for (const name of [
      "rejects-from-timer.mjs",
      "rejects-unawaited.mjs",
      "rejects-with-a-string.mjs",
    ])
      await runner.load({ name: name.replace(".mjs", ""), path: fixture(name), origin: "path" });
    const seen: string[] = [];
    await runner.addExtension("well-behaved", (arbor) => {
      arbor.on("turn_start", () => void seen.push("turn_start"));
      arbor.on("tool_call", () => ({ block: true, reason: "still here" }));
    });
    await runner.emit(turnStart);
    expect(await runner.emit(toolCall)).toMatchObject({ blocked: true, reason: "still here" });
    await until(() => errors.length >= 3);
    const background = errors.map(({ extensionName, event, kind, error }) => ({
      extensionName,
      event,
      kind,
      error,
    }));
    expect(background).toEqual(
      expect.arrayContaining([
        {
          extensionName: "rejects-from-timer",
          event: "background",
          kind: "unhandled_rejection",
          error: "a promise it did not await rejected: rejected from a timer",
        },
        {
          extensionName: "rejects-unawaited",
          event: "background",
          kind: "unhandled_rejection",
          error: "a promise it did not await rejected: rejected after the handler returned",
        },
        {
          extensionName: "rejects-with-a-string",
          event: "background",
          kind: "unhandled_rejection",
          error: "a promise it did not await rejected: a bare string",
        },
      ]),
    );
    expect(errors).toHaveLength(3);
    expect(unattributed).toEqual([]);
    // The session goes on: the next events still reach every handler.
    await runner.emit(turnStart);
    expect(seen).toEqual(["turn_start", "turn_start"]);
  });

  it("reports an exception thrown from a timer the module's top level set", async () => {
    const { runner, errors } = makeRunner();
    await runner.load({
      name: "throws-from-timer",
      path: fixture("throws-from-timer.mjs"),
      origin: "path",
    });
    await until(() => errors.length > 0);
    expect(errors).toEqual([
      expect.objectContaining({
        extensionName: "throws-from-timer",
        extensionPath: fixture("throws-from-timer.mjs"),
        event: "background",
        kind: "uncaught_exception",
        error: "a callback it scheduled threw: thrown from a timer at the top level",
      }),
    ]);
  });

  it("leaves failures of the host's own work to the app, even when an extension asked for it", async () => {
    const host = await FakeExtensionHost.create();
    const original = host.setTitle.bind(host);
    host.setTitle = async (title) => {
      Promise.reject(new Error("a stray rejection inside the host"));
      await original(title);
    };
    const { runner, errors } = makeRunner();
    await runner.addExtension("titler", (arbor) =>
      arbor.on("turn_start", async () => {
        await arbor.setTitle("A title");
      }),
    );
    runner.bindHost(host);
    await runner.emit(turnStart);
    Promise.reject(new Error("the app's own stray rejection"));
    await until(() => unattributed.length >= 2);
    expect(unattributed.map((e) => (e as Error).message).sort()).toEqual([
      "a stray rejection inside the host",
      "the app's own stray rejection",
    ]);
    expect(errors).toEqual([]);
  });
});

describe("loading with a deadline", () => {
  it("reports modules whose top-level await never settles, and loads the others", async () => {
    const { runner, errors } = makeRunner({
      loadTimeoutMs: 300,
      paths: [
        fixture("never-settles.mjs"),
        fixture("throws-at-top.mjs"),
        fixture("never-settles.ts"),
        fixture("busy-handler.mjs"),
      ],
    });
    const started = Date.now();
    const loaded = await runner.loadAll();
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(loaded.map((e) => e.name)).toEqual(["busy-handler"]);
    expect(errors.map(({ extensionName, event, kind }) => [extensionName, event, kind])).toEqual([
      ["never-settles", "load", "timeout"],
      ["throws-at-top", "load", "load_failed"],
      ["never-settles", "load", "timeout"],
    ]);
    expect(errors[0]?.error).toBe(
      "the module did not finish loading in 300 ms (a top-level await that never settles?); it is skipped",
    );
    expect(errors[1]?.error).toContain("thrown at the top level");
    expect(errors[2]?.extensionPath).toBe(fixture("never-settles.ts"));
  });

  it("waits 10 s by default", async () => {
    const { runner } = makeRunner();
    expect((runner as unknown as { loadTimeoutMs: number }).loadTimeoutMs).toBe(10_000);
  });
});

describe("a handler that holds the event loop, in-process", () => {
  it("is reported as blocked once it returns, with its name and how long", async () => {
    (globalThis as Hostile).__busyMs = 400;
    const { runner, errors } = makeRunner({ blockReportMs: 40 });
    await runner.load({ name: "busy-handler", path: fixture("busy-handler.mjs"), origin: "path" });
    await runner.addExtension("quick", (arbor) => arbor.on("turn_start", () => undefined));
    await runner.emit(turnStart);
    delete (globalThis as Hostile).__busyMs;
    expect(errors).toEqual([
      expect.objectContaining({
        extensionName: "busy-handler",
        event: "turn_start",
        kind: "blocked",
      }),
    ]);
    expect(errors[0]?.error).toMatch(
      /^the turn_start handler kept the event loop busy for \d+ ms; synchronous work cannot be interrupted in-process/,
    );
  });
});

describe("after shutdown", () => {
  it("refuses exec, registerTool, registerCommand and session calls with a typed error", async () => {
    const results: Array<{ what: string; outcome: string; message?: string }> = [];
    const done = new Promise<void>((resolve) => {
      (globalThis as Hostile).__hostileDone = resolve;
    });
    (globalThis as Hostile).__hostile = results;
    const { runner, errors } = makeRunner();
    await runner.load({
      name: "acts-after-shutdown",
      path: fixture("acts-after-shutdown.mjs"),
      origin: "path",
    });
    const host = await FakeExtensionHost.create();
    runner.bindHost(host);
    await runner.emit({ type: "session_shutdown", sessionId: host.session.getHeader().id });
    runner.bindHost(undefined);
    await done;
    delete (globalThis as Hostile).__hostile;
    delete (globalThis as Hostile).__hostileDone;
    expect(results.map(({ what, outcome }) => [what, outcome])).toEqual([
      ["exec", "host_unavailable"],
      ["registerTool", "host_unavailable"],
      ["registerCommand", "host_unavailable"],
      ["appendEntry", "host_unavailable"],
      ["sendMessage", "host_unavailable"],
    ]);
    expect(results[0]?.message).toBe("exec is refused: the session has shut down");
    expect(runner.getTools()).toEqual([]);
    expect(runner.getCommands()).toEqual([]);
    expect(host.calls).toEqual([]);
    expect(errors).toEqual([]);
  });

  it("stops a program exec started when the session shuts down, and allows exec again after the next start", async () => {
    let api: Parameters<Parameters<ExtensionRunner["addExtension"]>[1]>[0] | undefined;
    const { runner } = makeRunner();
    await runner.addExtension("runner-of-programs", (arbor) => {
      api = arbor;
    });
    runner.bindHost(await FakeExtensionHost.create());
    const running = api?.exec(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], {
      killGraceMs: 100,
    });
    await new Promise((done) => setTimeout(done, 100));
    runner.bindHost(undefined);
    expect(await running).toMatchObject({ killed: true, timedOut: false });
    const refused = await api?.exec(process.execPath, ["-e", "1"]).catch((error) => error);
    expect(ExtensionApiError.isInstance(refused) && refused.code).toBe("host_unavailable");
    runner.bindHost(await FakeExtensionHost.create());
    expect(
      await api?.exec(process.execPath, ["-e", "process.stdout.write('again')"]),
    ).toMatchObject({
      stdout: "again",
      code: 0,
    });
  });

  it("still lets extensions run programs while loading, before any session is bound", async () => {
    const { runner, errors } = makeRunner();
    let stdout = "";
    await runner.addExtension("probe", async (arbor) => {
      stdout = (await arbor.exec(process.execPath, ["-e", "process.stdout.write('ok')"])).stdout;
    });
    expect(errors).toEqual([]);
    expect(stdout).toBe("ok");
  });
});

describe("a project that is not trusted", () => {
  it("loads none of its .arbor/extensions (not even through a symlink), and still loads the home's", async () => {
    const { mkdtemp, mkdir, writeFile, symlink, rm } = await import("node:fs/promises");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const root = await mkdtemp(join(tmpdir(), "arbor-untrusted-"));
    try {
      const project = join(root, "project");
      const elsewhere = join(root, "elsewhere");
      const home = join(root, "home");
      await mkdir(join(project, ".arbor"), { recursive: true });
      await mkdir(elsewhere, { recursive: true });
      await mkdir(join(home, ".arbor/extensions"), { recursive: true });
      await writeFile(
        join(elsewhere, "evil.mjs"),
        "globalThis.__evilRan = true;\nexport default () => {};\n",
      );
      await symlink(elsewhere, join(project, ".arbor/extensions"));
      await writeFile(join(project, ".arbor/local.mjs"), "export default () => {};\n");
      await writeFile(join(home, ".arbor/extensions/global.mjs"), "export default () => {};\n");
      const { runner, errors } = makeRunner({ cwd: project, homeDir: home, includeProject: false });
      const loaded = await runner.loadAll();
      expect(loaded.map((e) => [e.name, e.origin])).toEqual([["global", "home"]]);
      expect((globalThis as { __evilRan?: boolean }).__evilRan).toBeUndefined();
      expect(errors).toEqual([]);
      const trusting = makeRunner({ cwd: project, homeDir: home });
      expect((await trusting.runner.loadAll()).map((e) => [e.name, e.origin])).toEqual([
        ["evil", "project"],
        ["global", "home"],
      ]);
      delete (globalThis as { __evilRan?: boolean }).__evilRan;
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe("extensions in a worker", () => {
  it("terminates a handler stuck in a synchronous loop, reports and disables the extension; the others go on", async () => {
    const { runner, errors } = makeRunner({
      isolation: "worker",
      handlerTimeoutMs: 300,
      paths: [fixture("sync-loop.mjs"), fixture("never-settles.mjs")],
      loadTimeoutMs: 2_000,
    });
    const loaded = await runner.loadAll();
    expect(loaded.map((e) => [e.name, e.events])).toEqual([["sync-loop", ["turn_start"]]]);
    const seen: string[] = [];
    await runner.addExtension("in-process", (arbor) =>
      arbor.on("turn_start", () => void seen.push("turn_start")),
    );
    const started = Date.now();
    await runner.emit(turnStart);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(seen).toEqual(["turn_start"]);
    expect(errors.map(({ extensionName, event, kind }) => [extensionName, event, kind])).toEqual([
      ["never-settles", "load", "load_failed"],
      ["sync-loop", "background", "terminated"],
    ]);
    expect(errors[0]?.error).toBe(
      "the factory threw: the module did not load in its worker within 2000 ms",
    );
    expect(errors[1]?.error).toBe(
      "the turn_start handler did not finish in 300 ms; its worker was terminated and the extension disabled",
    );
    // Disabled: the next event does not wait for it again.
    const again = Date.now();
    await runner.emit(turnStart);
    expect(Date.now() - again).toBeLessThan(300);
    expect(seen).toEqual(["turn_start", "turn_start"]);
    expect(errors).toHaveLength(2);
  });

  it("passes events in and results out, and names a module that fails in its worker", async () => {
    const { mkdtemp, writeFile, rm } = await import("node:fs/promises");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const dir = await mkdtemp(join(tmpdir(), "arbor-worker-"));
    try {
      await writeFile(
        join(dir, "guard.ts"),
        `export default (arbor: { on(e: string, h: (e: { toolName: string }) => unknown): void }) =>
  arbor.on("tool_call", (event) => event.toolName === "bash" ? { block: true, reason: "no shell from a worker" } : undefined);\n`,
      );
      await writeFile(join(dir, "no-default.mjs"), "export const x = 1;\n");
      const { runner, errors } = makeRunner({
        isolation: "worker",
        paths: [join(dir, "guard.ts"), fixture("throws-at-top.mjs"), join(dir, "no-default.mjs")],
      });
      expect((await runner.loadAll()).map((e) => e.name)).toEqual(["guard"]);
      expect(await runner.emit(toolCall)).toMatchObject({
        blocked: true,
        reason: "no shell from a worker",
        extensionName: "guard",
      });
      expect(errors.map(({ extensionName, kind }) => [extensionName, kind])).toEqual([
        ["throws-at-top", "load_failed"],
        ["no-default", "load_failed"],
      ]);
      expect(errors[0]?.error).toContain("thrown at the top level");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("refuses requireFinalMeta in a worker: the extension is reported and nothing is required", async () => {
    const { mkdtemp, writeFile, rm } = await import("node:fs/promises");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const dir = await mkdtemp(join(tmpdir(), "arbor-worker-"));
    try {
      await writeFile(
        join(dir, "cite.mjs"),
        `export default (arbor) => arbor.requireFinalMeta({ name: "sources", description: "URLs", schema: {} });\n`,
      );
      const { runner, errors } = makeRunner({
        isolation: "worker",
        paths: [join(dir, "cite.mjs")],
      });
      expect(await runner.loadAll()).toEqual([]);
      expect(runner.getFinalMetaRequirements()).toEqual([]);
      expect(errors).toMatchObject([{ extensionName: "cite", event: "load", kind: "load_failed" }]);
      expect(errors[0]?.error).toContain(
        "requireFinalMeta is not available to an extension running in a worker",
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
  it("a handler in a worker has no UI: requests get no answer, actions are refused", async () => {
    const { mkdtemp, writeFile, rm } = await import("node:fs/promises");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const dir = await mkdtemp(join(tmpdir(), "arbor-worker-"));
    try {
      await writeFile(
        join(dir, "asker.mjs"),
        `export default (arbor) => arbor.on("tool_call", async (event, ctx) => {
  const answer = await ctx.ui.confirm("Run?", "ls");
  ctx.ui.notify("asked");
  const refused = await ctx.compact().then(() => "ran", (error) => error.code);
  return { block: true, reason: JSON.stringify({ hasUI: ctx.hasUI, answer: answer ?? null, idle: ctx.isIdle(), models: ctx.models, refused }) };
});\n`,
      );
      const { runner, errors } = makeRunner({
        isolation: "worker",
        paths: [join(dir, "asker.mjs")],
      });
      await runner.loadAll();
      const outcome = await runner.emit(toolCall);
      expect(outcome.blocked && JSON.parse(outcome.reason)).toEqual({
        hasUI: false,
        answer: null,
        idle: true,
        models: [],
        refused: "unsupported_in_worker",
      });
      expect(errors).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
