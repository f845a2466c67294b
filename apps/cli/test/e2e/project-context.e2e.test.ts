import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
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
  server = await startRoutedServer({ prompts: { hello: "hi there" } });
});
afterAll(async () => {
  TmuxTerminal.shutdown();
  await server.close();
});
beforeEach(async () => {
  sandbox = await createSandbox();
  await mkdir(join(sandbox.project, ".git"));
  await sandbox.writeProjectFile("AGENTS.md", "Use tabs in this repo.");
  await sandbox.writeProjectFile("web/CLAUDE.md", "The web folder uses React.");
  await mkdir(join(sandbox.home, ".arbor"), { recursive: true });
  await writeFile(join(sandbox.home, ".arbor", "AGENTS.md"), "Answer in English.");
  await sandbox.writeConfig(JSON.stringify({ autoTitle: false }));
});
afterEach(async () => {
  for (const terminal of terminals.splice(0)) terminal.kill();
  await sandbox.remove();
});

describe("project context", () => {
  it("sends AGENTS.md / CLAUDE.md from home and from the repository root down to the working directory", async () => {
    const result = await runArbor(["-p", "hello"], {
      cwd: join(sandbox.project, "web"),
      env: sandbox.env(server.openaiBaseURL),
    });
    expect(result.code).toBe(0);
    const body = server.requests.at(-1)?.body as {
      messages: Array<{ role: string; content: string }>;
    };
    const system = body.messages.find((message) => message.role === "system")?.content ?? "";
    const order = ["Answer in English.", "Use tabs in this repo.", "The web folder uses React."];
    expect(order.map((text) => system.indexOf(text))).toEqual(
      [...order.map((text) => system.indexOf(text))].sort((a, b) => a - b),
    );
    for (const text of order) expect(system).toContain(text);
  });

  it("lists the files in /context", { timeout: 90_000 }, async () => {
    const terminal = TmuxTerminal.start({
      cwd: join(sandbox.project, "web"),
      env: sandbox.env(server.openaiBaseURL),
      args: [],
      height: 80,
    });
    terminals.push(terminal);
    await terminal.waitFor("/help for commands", 30_000);
    terminal.type("/context");
    terminal.press("Enter");
    // The files are listed after the whole system prompt.
    const screen = await terminal.waitFor(
      (text) => text.includes("../AGENTS.md") && /CLAUDE\.md\s+\d+ bytes/.test(text),
      30_000,
    );
    expect(screen).toContain(join(sandbox.home, ".arbor", "AGENTS.md"));
    expect(screen).toContain("../AGENTS.md");
  });
});
