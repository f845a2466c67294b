import { describe, expect, it } from "vitest";
import type { ExtensionErrorEvent } from "./events.js";
import { ExtensionRunner } from "./runner.js";
import { FakeExtensionHost } from "./test/index.js";
import { compactEvent } from "./testing/event-samples.js";

function makeRunner() {
  const errors: ExtensionErrorEvent[] = [];
  const runner = new ExtensionRunner({ cwd: "/project", onError: (error) => errors.push(error) });
  return { runner, errors };
}

describe("session_before_compact may replace the compaction prompt", () => {
  it("chains replacements: each handler sees the prompt so far, the last one wins", async () => {
    const { runner } = makeRunner();
    const seen: string[] = [];
    await runner.addExtension("terse", (arbor) =>
      arbor.on("session_before_compact", (event) => {
        seen.push(event.prompt);
        return { prompt: `${event.prompt} Be terse.` };
      }),
    );
    await runner.addExtension("watcher", (arbor) =>
      arbor.on("session_before_compact", (event) => void seen.push(event.prompt)),
    );
    await runner.addExtension("api", (arbor) =>
      arbor.on("session_before_compact", (event) => ({
        prompt: `${event.prompt} Keep API names.`,
      })),
    );
    expect(await runner.emit(compactEvent("manual"))).toEqual({
      cancelled: false,
      prompt: "Summarize the conversation. Be terse. Keep API names.",
    });
    expect(seen).toEqual(["Summarize the conversation.", "Summarize the conversation. Be terse."]);
  });

  it("returns the prompt beside a supplied summary, and none when nobody replaced it", async () => {
    const { runner } = makeRunner();
    await runner.addExtension("both", (arbor) =>
      arbor.on("session_before_compact", () => ({ prompt: "Mine.", summary: "done", details: 1 })),
    );
    expect(await runner.emit(compactEvent("threshold"))).toEqual({
      cancelled: false,
      prompt: "Mine.",
      summary: "done",
      details: 1,
      extensionName: "both",
    });
    expect(await makeRunner().runner.emit(compactEvent("threshold"))).toEqual({
      cancelled: false,
    });
  });

  it("a cancel still wins over an earlier replacement", async () => {
    const { runner } = makeRunner();
    await runner.addExtension("rewrite", (arbor) =>
      arbor.on("session_before_compact", () => ({ prompt: "Mine." })),
    );
    await runner.addExtension("veto", (arbor) =>
      arbor.on("session_before_compact", () => ({ cancel: true })),
    );
    expect(await runner.emit(compactEvent("manual"))).toEqual({
      cancelled: true,
      extensionName: "veto",
    });
  });

  it.each([
    ["an empty prompt", { prompt: "" }],
    ["a blank prompt", { prompt: "   " }],
    ["a prompt that is not a string", { prompt: 42 }],
    ["a misspelt key", { promt: "Mine." }],
  ])("reports %s as an invalid return and keeps the runner's prompt", async (_what, bad) => {
    const { runner, errors } = makeRunner();
    await runner.addExtension("bad", (arbor) =>
      arbor.on("session_before_compact", () => bad as never),
    );
    expect(await runner.emit(compactEvent("manual"))).toEqual({ cancelled: false });
    expect(errors).toMatchObject([
      { extensionName: "bad", event: "session_before_compact", kind: "invalid_return" },
    ]);
  });
});

describe("the session view exposes the injected stream rules", () => {
  it("lists the rules of the ttsr_injection entries on the current path, oldest first", async () => {
    const host = await FakeExtensionHost.create();
    const session = host.backing;
    const { runner } = makeRunner();
    runner.bindHost(host);
    const seen: unknown[] = [];
    await runner.addExtension("reader", (arbor) =>
      arbor.on("turn_start", (_event, ctx) => void seen.push(ctx.session.getInjectedTtsrRules())),
    );
    await session.appendMessage({ role: "user", content: "hi", timestamp: 1 });
    await session.appendTtsrInjection([{ rule: "no-any", turn: 0, interrupt: 0 }]);
    const fork = session.getLeafId() as string;
    await session.appendTtsrInjection([
      { rule: "no-eval", turn: 2, interrupt: 1 },
      { rule: "no-any", turn: 2, interrupt: 1 },
    ]);
    await runner.emit({ type: "turn_start", turnIndex: 3, timestamp: 1 });
    // Off the path, an injection no longer counts.
    await session.branch(fork);
    await runner.emit({ type: "turn_start", turnIndex: 3, timestamp: 1 });
    expect(seen).toEqual([
      [
        { rule: "no-any", turn: 0, interrupt: 0 },
        { rule: "no-eval", turn: 2, interrupt: 1 },
        { rule: "no-any", turn: 2, interrupt: 1 },
      ],
      [{ rule: "no-any", turn: 0, interrupt: 0 }],
    ]);
  });

  it("hands out copies: editing them changes nothing stored", async () => {
    const host = await FakeExtensionHost.create();
    await host.backing.appendTtsrInjection([{ rule: "no-any", turn: 0, interrupt: 0 }]);
    const { runner } = makeRunner();
    runner.bindHost(host);
    let api: import("./extension-api.js").ExtensionAPI | undefined;
    await runner.addExtension("editor", (arbor) => {
      api = arbor;
    });
    const rules = api?.session.getInjectedTtsrRules() ?? [];
    (rules[0] as { rule: string }).rule = "changed";
    rules.push({ rule: "extra", turn: 1, interrupt: 1 });
    expect(api?.session.getInjectedTtsrRules()).toEqual([
      { rule: "no-any", turn: 0, interrupt: 0 },
    ]);
  });
});
