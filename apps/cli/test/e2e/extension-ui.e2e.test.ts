/*
 * The repository's example extensions in the terminal app, end to end in tmux: the
 * permission gate's question takes the keyboard, and the todo list's renderer draws its
 * message in the transcript. The examples are copied into the home's .arbor/extensions/
 * (loaded without a trust question), as a user installs them.
 */
import { copyFile, mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FakeProviderServer } from "@arbor/providers/test";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createSandbox, type Sandbox } from "./e2e-fixture.js";
import { startRoutedServer } from "./routed-fake-server.js";
import { TmuxTerminal } from "./tmux-terminal.js";

const examples = fileURLToPath(new URL("../../../../examples/extensions/", import.meta.url));
const AFTER_TOOL = "understood, not deleting";

let server: FakeProviderServer;
let sandbox: Sandbox;
const terminals: TmuxTerminal[] = [];

beforeAll(async () => {
  server = await startRoutedServer({
    prompts: {
      "clean up": {
        blocks: [{ type: "toolCall", name: "bash", arguments: { command: "rm old.txt" } }],
      },
    },
    afterTool: AFTER_TOOL,
  });
});
afterAll(async () => {
  TmuxTerminal.shutdown();
  await server.close();
});
beforeEach(async () => {
  sandbox = await createSandbox();
  const dir = join(sandbox.home, ".arbor", "extensions");
  await mkdir(dir, { recursive: true });
  for (const file of ["permission-gate.ts", "todo-list.ts"])
    await copyFile(join(examples, file), join(dir, file));
});
afterEach(async () => {
  for (const terminal of terminals.splice(0)) terminal.kill();
  await sandbox.remove();
});

function start(): TmuxTerminal {
  const terminal = TmuxTerminal.start({
    cwd: sandbox.project,
    env: sandbox.env(server.openaiBaseURL),
    args: [],
  });
  terminals.push(terminal);
  return terminal;
}

describe("example extensions in the terminal app", () => {
  it("permission-gate: the question takes the keyboard; Deny blocks the command and the model is told", async () => {
    const terminal = start();
    await terminal.waitFor("/help for commands");
    await sandbox.writeProjectFile("old.txt", "keep me\n");
    terminal.type("clean up please");
    terminal.press("Enter");
    const question = await terminal.waitFor("Allow this command?");
    expect(question).toContain("rm old.txt");
    expect(question).toContain("permission-gate asks");
    expect(question).toContain("Allow once");
    terminal.press("Down");
    terminal.press("Down");
    await terminal.waitFor("❯ Deny");
    terminal.press("Enter");
    await terminal.waitFor(AFTER_TOOL, 15_000);
    expect(await readFile(join(sandbox.project, "old.txt"), "utf8")).toBe("keep me\n");
    const file = (await sandbox.sessionFiles()).at(-1) as string;
    expect(await readFile(file, "utf8")).toContain("Not run: the user denied it");
  });

  it("todo-list: /todo notifies in the footer, /todos is drawn by the extension's renderer", async () => {
    const terminal = start();
    await terminal.waitFor("/help for commands");
    terminal.type("/todo add write the docs");
    terminal.press("Enter");
    await terminal.waitFor("todo-list: 1 open of 1");
    terminal.type("/todos");
    terminal.press("Enter");
    const screen = await terminal.waitFor("Todo (1 open of 1)");
    expect(screen).toContain("1. [ ] write the docs");
  });
});
