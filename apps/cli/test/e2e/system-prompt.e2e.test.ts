import { execFileSync } from "node:child_process";
import { realpathSync } from "node:fs";
import type { FakeProviderServer } from "@arbor/providers/test";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createSandbox, type Sandbox } from "./e2e-fixture.js";
import { startRoutedServer } from "./routed-fake-server.js";
import { runArbor } from "./run-binary.js";
import { TmuxTerminal } from "./tmux-terminal.js";

let server: FakeProviderServer;
let sandbox: Sandbox;
const terminals: TmuxTerminal[] = [];

beforeAll(async () => {
  server = await startRoutedServer({
    prompts: {
      "read the notes": {
        blocks: [{ type: "toolCall", name: "read", arguments: { path: "notes.txt" } }],
      },
      hello: "hi there",
    },
    afterTool: "The notes say hello.",
  });
});
afterAll(async () => {
  TmuxTerminal.shutdown();
  await server.close();
});
beforeEach(async () => {
  sandbox = await createSandbox();
  await sandbox.writeConfig(JSON.stringify({ autoTitle: false }));
  await sandbox.writeProjectFile("notes.txt", "hello\n");
});
afterEach(async () => {
  for (const terminal of terminals.splice(0)) terminal.kill();
  await sandbox.remove();
});

function systemPrompts(): string[] {
  return server.requests
    .filter((request) => request.path === "/v1/chat/completions")
    .map((request) => request.body as { messages?: Array<{ role: string; content: unknown }> })
    .map((body) => body.messages?.find((message) => message.role === "system")?.content)
    .map((content) => (typeof content === "string" ? content : ""));
}

const arbor = (args: string[]) =>
  runArbor(args, { cwd: sandbox.project, env: sandbox.env(server.openaiBaseURL) });

describe("the built-in system prompt", () => {
  it("tells the model its role, where it runs, its tools and the approval mode, the same on every turn", async () => {
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], {
        cwd: sandbox.project,
        stdio: "pipe",
      });
    git("init", "-q", "-b", "trunk");
    git("add", "notes.txt");
    git("commit", "-q", "-m", "notes");
    await sandbox.writeProjectFile("draft.txt", "not committed\n");
    await sandbox.writeProjectFile("AGENTS.md", "Use tabs in this repo.");
    server.requests.length = 0;

    const result = await arbor(["-p", "--append-system-prompt", "Be brief.", "read the notes"]);
    expect(result.code, result.stderr).toBe(0);
    const prompts = systemPrompts();
    expect(prompts).toHaveLength(2);
    // Stable across turns: the tool turn and the answer turn send the same prompt.
    expect(prompts[1]).toBe(prompts[0]);
    const prompt = prompts[0] ?? "";
    expect(prompt).toMatch(/^You are Arbor, a coding agent/);
    expect(prompt).toContain(`Working directory: ${realpathSync(sandbox.project)}`);
    expect(prompt).toMatch(/OS: \S+ .*\(linux\); shell: bash/);
    expect(prompt).toMatch(/Date: \d{4}-\d{2}-\d{2}/);
    // draft.txt and AGENTS.md are untracked.
    expect(prompt).toContain("Git: a git repository on branch trunk, 2 changed or untracked files");
    expect(prompt).toContain("edit: change an existing file");
    expect(prompt).toContain("bash: run non-interactive commands");
    expect(prompt).toContain("Approval mode ask:");
    // Extended, in this order: the built-in prompt, the appended text, the project's files.
    const order = ["You are Arbor", "Be brief.", "Use tabs in this repo."].map((text) =>
      prompt.indexOf(text),
    );
    expect(order.every((index) => index >= 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));

    const yolo = await arbor(["-p", "--approval", "yolo", "hello"]);
    expect(yolo.code).toBe(0);
    expect(systemPrompts().at(-1)).toContain("Approval mode yolo:");
    expect(systemPrompts().at(-1)).not.toContain("Git: not a git repository");
  });

  it("is replaced by --system-prompt and by the config's systemPrompt", async () => {
    const replaced = await arbor(["-p", "--system-prompt", "Only this.", "hello"]);
    expect(replaced.code).toBe(0);
    expect(systemPrompts().at(-1)).toBe("Only this.");
    await sandbox.writeConfig(JSON.stringify({ autoTitle: false, systemPrompt: "From config." }));
    const configured = await arbor(["-p", "hello"]);
    expect(configured.code).toBe(0);
    expect(systemPrompts().at(-1)).toBe("From config.");
    // Outside a repository the prompt says so.
    await sandbox.writeConfig(JSON.stringify({ autoTitle: false }));
    await arbor(["-p", "hello"]);
    expect(systemPrompts().at(-1)).toContain("Git: not a git repository");
  });

  it("is shown by /context", async () => {
    const terminal = TmuxTerminal.start({
      cwd: sandbox.project,
      env: sandbox.env(server.openaiBaseURL),
      height: 60,
    });
    terminals.push(terminal);
    await terminal.waitFor("/help for commands", 30_000);
    terminal.type("/context");
    terminal.press("Enter");
    const screen = await terminal.waitFor("The system prompt sent with every request", 30_000);
    expect(screen).toContain("You are Arbor, a coding agent");
  });
});
