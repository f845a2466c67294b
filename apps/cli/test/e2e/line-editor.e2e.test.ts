import type { FakeProviderServer } from "@arbor/providers/test";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createSandbox, type Sandbox } from "./e2e-fixture.js";
import { startRoutedServer } from "./routed-fake-server.js";
import { TmuxTerminal } from "./tmux-terminal.js";

let server: FakeProviderServer;
let sandbox: Sandbox;
const terminals: TmuxTerminal[] = [];

// Every prompt is answered with "echo: <prompt>", so the screen shows what was sent.
beforeAll(async () => {
  server = await startRoutedServer({ prompts: {} });
});
afterAll(async () => {
  TmuxTerminal.shutdown();
  await server.close();
});
beforeEach(async () => {
  sandbox = await createSandbox();
  await sandbox.writeConfig(JSON.stringify({ autoTitle: false }));
  await sandbox.writeProjectFile("notes.txt", "n");
  await sandbox.writeProjectFile("src/main.ts", "m");
});
afterEach(async () => {
  for (const terminal of terminals.splice(0)) terminal.kill();
  await sandbox.remove();
});

async function start(): Promise<TmuxTerminal> {
  const terminal = TmuxTerminal.start({
    cwd: sandbox.project,
    env: sandbox.env(server.openaiBaseURL),
    args: [],
  });
  terminals.push(terminal);
  await terminal.waitFor("/help for commands");
  return terminal;
}

/** Sends what is typed and waits for the fake model's echo of exactly that prompt. */
async function sendAndExpect(terminal: TmuxTerminal, prompt: string): Promise<void> {
  terminal.press("Enter");
  await terminal.waitFor(`echo: ${prompt}`);
  await terminal.waitFor("/help for commands");
}

describe("the line editor in a real terminal", () => {
  it("moves and deletes by character, word and line, with cursor keys, Home/End and Ctrl keys", async () => {
    const terminal = await start();
    terminal.type("hello world");
    terminal.press("Left", "Left", "Left", "Left", "Left");
    terminal.type("big ");
    terminal.press("Home");
    terminal.type("[");
    terminal.press("End");
    terminal.type("]");
    await sendAndExpect(terminal, "[hello big world]");

    terminal.type("one two three");
    terminal.press("C-w"); // deletes "three"
    terminal.press("C-a");
    terminal.type("zero ");
    terminal.press("C-e");
    terminal.type("end");
    await sendAndExpect(terminal, "zero one two end");

    terminal.type("alpha beta gamma");
    terminal.press("M-b", "M-b"); // to "beta"
    terminal.press("C-k"); // cut "beta gamma"
    terminal.type("omega");
    await sendAndExpect(terminal, "alpha omega");

    terminal.type("throw this away");
    terminal.press("C-u");
    terminal.type("kept");
    terminal.press("C-Left");
    terminal.type("is ");
    await sendAndExpect(terminal, "is kept");
  });

  it("applies several keys that arrive in one read, walks the history, and continues lines", async () => {
    const terminal = await start();
    // Text, two Left arrows, more text and Enter in one write.
    terminal.sendBytes("abef\u001b[D\u001b[Dcd\r");
    await terminal.waitFor("echo: abcdef");
    await terminal.waitFor("/help for commands");
    terminal.press("Up");
    await terminal.waitFor("› abcdef");
    terminal.press("BSpace");
    terminal.type("g");
    await sendAndExpect(terminal, "abcdeg");

    terminal.type("first line");
    terminal.press("C-j");
    terminal.type("second line");
    terminal.press("Enter");
    const screen = await terminal.waitFor("echo: first line");
    expect(screen).toContain("second line");
  });

  it("keeps a bracketed paste with line breaks as one message, not several", async () => {
    const terminal = await start();
    terminal.type("before ");
    terminal.paste("pasted one\npasted two\n");
    await terminal.waitFor("pasted two");
    // Nothing was sent by the pasted line breaks.
    expect(terminal.screen()).not.toContain("echo:");
    terminal.type(" after");
    terminal.press("Enter");
    const screen = await terminal.waitFor("echo: before pasted one");
    expect(screen).toContain("pasted two");
    expect(screen).toContain(" after");
  });

  it("completes slash commands and @file paths with Tab", async () => {
    const terminal = await start();
    terminal.type("/cont");
    terminal.press("Tab");
    await terminal.waitFor("› /context");
    terminal.press("Enter");
    await terminal.waitFor("No AGENTS.md or CLAUDE.md is loaded");
    terminal.type("read @no");
    terminal.press("Tab");
    terminal.type("and @s");
    terminal.press("Tab");
    terminal.type("m");
    terminal.press("Tab");
    await sendAndExpect(terminal, "read @notes.txt and @src/main.ts");
    terminal.type("/t");
    terminal.press("Tab");
    await terminal.waitFor("/thinking  /title  /tree");
  });

  it("Ctrl+C clears the input first, and quits only when pressed twice on an empty input", async () => {
    const terminal = await start();
    terminal.type("a draft");
    await terminal.waitFor("› a draft");
    terminal.press("C-c");
    await terminal.waitFor((screen) => !screen.includes("a draft"));
    expect(terminal.screen()).not.toContain("Press Ctrl+C again");
    terminal.press("C-c");
    await terminal.waitFor("Press Ctrl+C again");
    terminal.press("C-c");
    expect(await terminal.exitCode()).toBe(0);
  });
});
