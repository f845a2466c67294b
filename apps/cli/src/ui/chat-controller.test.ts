import { ExtensionRunner } from "@arbor/extensions-api";
import { ScriptedModel } from "@arbor/providers/test";
import { describe, expect, it } from "vitest";
import { ChatController } from "./chat-controller.js";
import { openTestHost } from "./chat-host.test-util.js";

async function controllerWithLifecycleLog(answers: string[]) {
  const log: string[] = [];
  const extensions = new ExtensionRunner({ cwd: "/project" });
  await extensions.addExtension("lifecycle", (arbor) => {
    arbor.on("session_start", (event) => {
      log.push(`start ${event.reason} ${event.sessionId}`);
    });
    arbor.on("session_shutdown", (event) => {
      log.push(`shutdown ${event.sessionId}`);
    });
  });
  const model = new ScriptedModel({ responses: answers });
  const { host, store } = await openTestHost({ model, cwd: "/project", extensions });
  const controller = new ChatController({
    host,
    rules: { rules: [], warnings: [] },
    selectModel: () => model,
  });
  return { controller, host, store, log };
}

describe("ChatController on the agent host", () => {
  it("tells extensions of each session exactly once, through fork, /sessions and quit", async () => {
    const { controller, store, log } = await controllerWithLifecycleLog(["one", "two"]);
    const first = controller.currentSession.id;
    await controller.send("hello");
    const forked = await controller.fork();
    if (!forked) throw new Error("expected a fork");
    const older = await store.create({ cwd: "/project" });
    await older.close();
    await controller.switchSession(older.id);
    await controller.close();
    // Quitting twice (the app's finally and a second Ctrl+C) tells nobody twice.
    await controller.close();
    expect(log).toEqual([
      `start startup ${first}`,
      `shutdown ${first}`,
      `start fork ${forked.id}`,
      `shutdown ${forked.id}`,
      `start resume ${older.id}`,
      `shutdown ${older.id}`,
    ]);
  });

  it("keeps what the session stored when a switch fails, and the app where it was", async () => {
    const { controller } = await controllerWithLifecycleLog(["kept answer"]);
    await controller.send("keep this");
    const before = controller.currentSession.getEntries().map((entry) => entry.id);
    for (const bad of ["no-such-session", "", "../../etc/passwd"]) {
      await expect(controller.switchSession(bad)).rejects.toThrow();
      expect(controller.currentSession.getEntries().map((entry) => entry.id)).toEqual(before);
    }
    expect(controller.getState().items.map((item) => item.kind)).toEqual(["user", "assistant"]);
    await controller.close();
  });

  it("shows the session's token and cost totals, earlier runs included, so they survive a resume", async () => {
    const { controller, host } = await controllerWithLifecycleLog(["a", "b"]);
    await host.session.appendMessage({
      role: "assistant",
      content: [{ type: "text", text: "from an earlier run" }],
      usage: {
        input: 1000,
        output: 700,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 1700,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.25 },
      },
      timestamp: 1,
    } as never);
    controller.refresh();
    // Before anything is sent in this app run, the stored totals show.
    expect(controller.getState().usage).toEqual({ input: 1000, output: 700 });
    expect(controller.getState().cost).toBeCloseTo(0.25);
    await controller.send("hi");
    const shown = controller.getState();
    expect(shown.usage.input).toBeGreaterThan(1000);
    expect(shown.usage).toEqual({
      input: host.state().usage.input,
      output: host.state().usage.output,
    });
    expect(shown.cost).toBeGreaterThanOrEqual(0.25);
    await controller.close();
  });
});
