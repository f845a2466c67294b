import { type ExtensionCommandContext, ExtensionRunner } from "@arbor/extensions-api";
import { FakeExtensionHost } from "@arbor/extensions-api/test";
import { render } from "ink-testing-library";
import { describe, expect, it, vi } from "vitest";
import { inputReady } from "../ink-input.test-util.js";
import { ExtensionUILayer } from "./extension-ui-layer.js";
import { TerminalExtensionUI } from "./terminal-extension-ui.js";

const tick = () => new Promise((resolve) => setTimeout(resolve, 20));
const ESC = "\u001B";
const DOWN = "\u001B[B";

/** A runner whose command context the test uses, with the terminal UI bound. */
async function setup() {
  const ui = new TerminalExtensionUI();
  const runner = new ExtensionRunner({ cwd: "/p", ui });
  let ctx: ExtensionCommandContext | undefined;
  await runner.addExtension("asker", (arbor) =>
    arbor.registerCommand("grab", {
      description: "",
      handler: (_args, c) => {
        ctx = c;
      },
    }),
  );
  runner.bindHost(await FakeExtensionHost.create());
  await runner.runCommand("grab", "");
  const view = render(<ExtensionUILayer ui={ui} width={60} />);
  return { ui, ctx: ctx as ExtensionCommandContext, ...view };
}

describe("extension dialogs in the terminal", () => {
  it("select: arrows move, Enter picks, the extension gets the option", async () => {
    const { ctx, stdin, lastFrame } = await setup();
    const answer = ctx.ui.select("Pick a mode", ["fast", "careful", "paranoid"]);
    await vi.waitFor(() => expect(lastFrame()).toContain("Pick a mode"));
    expect(lastFrame()).toContain("asker asks");
    await inputReady(stdin);
    stdin.write(DOWN);
    await tick();
    await vi.waitFor(() => expect(lastFrame()).toContain("❯ careful"));
    stdin.write("\r");
    expect(await answer).toBe("careful");
    await vi.waitFor(() => expect(lastFrame()).not.toContain("Pick a mode"));
  });

  it("select and input: keys arriving faster than the screen repaints are all applied before Enter", async () => {
    const { ctx, stdin, lastFrame } = await setup();
    const picked = ctx.ui.select("Pick", ["a", "b", "c"]);
    await vi.waitFor(() => expect(lastFrame()).toContain("Pick"));
    await inputReady(stdin);
    // One write per key, with no pause for the screen to catch up.
    stdin.write(DOWN);
    stdin.write(DOWN);
    stdin.write("\r");
    expect(await picked).toBe("c");
    const typed = ctx.ui.input("Name");
    await vi.waitFor(() => expect(lastFrame()).toContain("Name"));
    stdin.write("a");
    stdin.write("b");
    stdin.write("c");
    stdin.write("\u007F");
    stdin.write("\r");
    expect(await typed).toBe("ab");
    // Text and Enter in one chunk (a paste, a fast typist over a slow link).
    const pasted = ctx.ui.input("Again");
    await vi.waitFor(() => expect(lastFrame()).toContain("Again"));
    stdin.write("xyz\r");
    expect(await pasted).toBe("xyz");
  });

  it.each([
    ["y", true],
    ["n", false],
    [ESC, undefined],
  ])("confirm: %j answers %j", async (key, expected) => {
    const { ctx, stdin, lastFrame } = await setup();
    const answer = ctx.ui.confirm("Delete build/?", "rm -r build");
    await vi.waitFor(() => expect(lastFrame()).toContain("rm -r build"));
    await inputReady(stdin);
    stdin.write(key);
    expect(await answer).toBe(expected);
  });

  it("input: typed text with backspace, Enter sends; Esc is no answer", async () => {
    const { ctx, stdin, lastFrame } = await setup();
    const answer = ctx.ui.input("Branch name", "feature/…");
    await vi.waitFor(() => expect(lastFrame()).toContain("feature/…"));
    await inputReady(stdin);
    stdin.write("fixx");
    await tick();
    stdin.write("\u007F");
    await tick();
    await vi.waitFor(() => expect(lastFrame()).toContain("› fix"));
    stdin.write("\r");
    expect(await answer).toBe("fix");
    const second = ctx.ui.input("Again");
    await vi.waitFor(() => expect(lastFrame()).toContain("Again"));
    stdin.write(ESC);
    expect(await second).toBeUndefined();
  });

  it("custom: the extension draws, gets keys, and closes with done; Esc closes with none", async () => {
    const { ctx, stdin, lastFrame } = await setup();
    let n = 0;
    const answer = ctx.ui.custom<number>({
      render: () => [`count ${n}`],
      handleKey: (key, done) => {
        if (key.name === "up") n++;
        if (key.name === "enter") done(n);
      },
    });
    await vi.waitFor(() => expect(lastFrame()).toContain("count 0"));
    await inputReady(stdin);
    stdin.write("\u001B[A");
    await tick();
    stdin.write("\u001B[A");
    await vi.waitFor(() => expect(lastFrame()).toContain("count 2"));
    stdin.write("\r");
    expect(await answer).toBe(2);
    const closed = ctx.ui.custom({ render: () => ["open"] });
    await vi.waitFor(() => expect(lastFrame()).toContain("open"));
    stdin.write(ESC);
    expect(await closed).toBeUndefined();
  });

  it("one dialog at a time, in the order asked; a timed-out request leaves the screen", async () => {
    const { ctx, stdin, lastFrame } = await setup();
    const first = ctx.ui.confirm("First?", "");
    const second = ctx.ui.confirm("Second?", "");
    const expiring = ctx.ui.confirm("Expiring?", "", { timeoutMs: 400 });
    await vi.waitFor(() => expect(lastFrame()).toContain("2 more waiting"));
    expect(lastFrame()).toContain("First?");
    expect(await expiring).toBeUndefined();
    await vi.waitFor(() => expect(lastFrame()).toContain("1 more waiting"));
    await inputReady(stdin);
    stdin.write("y");
    expect(await first).toBe(true);
    await vi.waitFor(() => expect(lastFrame()).toContain("Second?"));
    stdin.write("n");
    expect(await second).toBe(false);
  });

  it("notifications show in the footer with the extension's name, the newest three kept", async () => {
    const { ctx, lastFrame } = await setup();
    for (const text of ["one", "two", "three", "four"]) ctx.ui.notify(text);
    ctx.ui.notify("careful", "warning");
    await vi.waitFor(() => expect(lastFrame()).toContain("asker: careful"));
    expect(lastFrame()).not.toContain("asker: two");
    expect(lastFrame()).toContain("asker: three");
  });

  it("escapes terminal control sequences an extension puts in its texts", async () => {
    const { ctx, lastFrame } = await setup();
    void ctx.ui.select("Title \u001B[2J cleared?", ["opt\u001B]0;pwned\u0007"]);
    await vi.waitFor(() => expect(lastFrame()).toContain("cleared?"));
    expect(lastFrame()).not.toContain("\u001B[2J");
    expect(lastFrame()).not.toContain("\u001B]0;");
  });

  it("cancelAll dismisses every dialog with no answer", async () => {
    const { ui, ctx } = await setup();
    const asks = [ctx.ui.confirm("A?", ""), ctx.ui.select("B", ["x"])];
    await tick();
    ui.cancelAll();
    expect(await Promise.all(asks)).toEqual([undefined, undefined]);
    expect(ui.getState().pending).toBeUndefined();
  });
});
