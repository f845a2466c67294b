import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { FakeProviderServer } from "@arbor/providers/test";
import { isEntryOfType } from "@arbor/session-store";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createSandbox, type Sandbox } from "./e2e-fixture.js";
import { startRoutedServer } from "./routed-fake-server.js";
import { runArbor } from "./run-binary.js";
import { TmuxTerminal } from "./tmux-terminal.js";

let server: FakeProviderServer;
let sandbox: Sandbox;
const terminals: TmuxTerminal[] = [];
const AFTER_TOOL = "tool finished";

beforeAll(async () => {
  server = await startRoutedServer({
    prompts: {
      "write please": {
        blocks: [
          {
            type: "toolCall",
            name: "write",
            arguments: { path: "notes/a.txt", content: "from the model\n" },
          },
        ],
      },
      "run please": {
        blocks: [{ type: "toolCall", name: "bash", arguments: { command: "echo ran >> ran.txt" } }],
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
});
afterEach(async () => {
  for (const terminal of terminals.splice(0)) terminal.kill();
  await sandbox.remove();
});

/** Waits until the newest session file holds `count` answers after a tool. */
async function waitForAnswers(count: number): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const file = (await sandbox.sessionFiles()).at(-1);
    const text = file ? await readFile(file, "utf8") : "";
    if (text.split(AFTER_TOOL).length - 1 >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the session never held ${count} answers`);
}

const readProject = (path: string) =>
  readFile(join(sandbox.project, path), "utf8").catch(() => undefined);

describe("approvals in the app", () => {
  it("asks before a write and a command: yes runs it, no does not, always runs it and is not asked again", async () => {
    const terminal = TmuxTerminal.start({
      cwd: sandbox.project,
      env: sandbox.env(server.openaiBaseURL),
      args: [],
    });
    terminals.push(terminal);
    await terminal.waitFor("/help for commands");

    terminal.type("write please");
    terminal.press("Enter");
    const question = await terminal.waitFor("Allow write?");
    expect(question).toContain("notes/a.txt");
    expect(question).toContain("+from the model");
    expect(await readProject("notes/a.txt")).toBeUndefined();
    terminal.type("y");
    await waitForAnswers(1);
    await terminal.waitFor("/help for commands");
    expect(await readProject("notes/a.txt")).toBe("from the model\n");

    terminal.type("run please");
    terminal.press("Enter");
    await terminal.waitFor("Allow bash? echo ran >> ran.txt");
    terminal.type("n");
    await waitForAnswers(2);
    await terminal.waitFor("/help for commands");
    expect(await readProject("ran.txt")).toBeUndefined();

    terminal.type("run please");
    terminal.press("Enter");
    await terminal.waitFor("Allow bash? echo ran >> ran.txt");
    terminal.type("a");
    await waitForAnswers(3);
    await terminal.waitFor("/help for commands");
    expect(await readProject("ran.txt")).toBe("ran\n");

    terminal.type("run please");
    terminal.press("Enter");
    await waitForAnswers(4);
    expect(await readProject("ran.txt")).toBe("ran\nran\n");

    const session = await sandbox.openLatestSession();
    const decisions = session
      .getEntries()
      .flatMap((entry) =>
        isEntryOfType(entry, "custom") && entry.customType === "arbor.approval" ? [entry.data] : [],
      )
      .map((data) => {
        const { tool, decision, by } = data as Record<string, string>;
        return `${tool} ${decision} by ${by}`;
      });
    await session.close();
    expect(decisions).toEqual([
      "write allowed by user",
      "bash denied by user",
      "bash allowed by user",
      "bash allowed by rule",
    ]);
    const approvals = JSON.parse(
      await readFile(join(sandbox.home, ".arbor", "approvals.json"), "utf8"),
    ) as { projects: Record<string, { allow: unknown[] }> };
    expect(Object.values(approvals.projects)[0]?.allow).toEqual([
      { tool: "bash", command: "echo ran >> ran.txt" },
    ]);
  });
});

describe("approvals in arbor run", () => {
  it("asks on the terminal when there is one: a yes runs the command, a no does not", async () => {
    for (const [answer, expected] of [
      ["n", undefined],
      ["y", "ran\n"],
    ] as const) {
      const terminal = TmuxTerminal.start({
        cwd: sandbox.project,
        env: sandbox.env(server.openaiBaseURL),
        args: ["run", "run please"],
      });
      terminals.push(terminal);
      const question = await terminal.waitFor("[y]es / [n]o / [a]lways for this project?");
      expect(question).toContain("Allow bash: echo ran >> ran.txt");
      terminal.type(answer);
      terminal.press("Enter");
      expect(await terminal.exitCode(20_000)).toBe(0);
      expect(await readProject("ran.txt")).toBe(expected);
    }
  });

  const arbor = (args: string[]) =>
    runArbor(args, { cwd: sandbox.project, env: sandbox.env(server.openaiBaseURL) });

  it("without a terminal a call that needs a yes fails at once with a message; --approval allows it", async () => {
    const refused = await arbor(["run", "write please"]);
    expect(refused.stderr).toContain("write needs the user's approval");
    expect(refused.stderr).toContain("--approval");
    expect(refused.stdout).toContain(AFTER_TOOL);
    expect(await readProject("notes/a.txt")).toBeUndefined();

    const editsAllowed = await arbor(["run", "--approval", "auto-edit", "write please"]);
    expect(editsAllowed.code).toBe(0);
    expect(await readProject("notes/a.txt")).toBe("from the model\n");
    const commandAsked = await arbor(["run", "--approval", "auto-edit", "run please"]);
    expect(commandAsked.stderr).toContain("bash needs the user's approval");
    expect(await readProject("ran.txt")).toBeUndefined();
    const yolo = await arbor(["run", "--approval", "yolo", "run please"]);
    expect(yolo.code).toBe(0);
    expect(await readProject("ran.txt")).toBe("ran\n");

    const wrong = await arbor(["run", "--approval", "sometimes", "run please"]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('--approval "sometimes" is not an approval mode');
  });
});
