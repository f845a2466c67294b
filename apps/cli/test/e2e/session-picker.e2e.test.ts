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
      "apple pie": "answer about apples",
      "banana bread": "answer about bananas",
      "cherry tart": "answer about cherries",
    },
  });
});
afterAll(async () => {
  TmuxTerminal.shutdown();
  await server.close();
});
beforeEach(async () => {
  sandbox = await createSandbox();
  // Titles are the first messages, so each session is told apart by its own.
  await sandbox.writeConfig(JSON.stringify({ autoTitle: false }));
});
afterEach(async () => {
  for (const terminal of terminals.splice(0)) terminal.kill();
  await sandbox.remove();
});

const arbor = (args: string[]) =>
  runArbor(args, { cwd: sandbox.project, env: sandbox.env(server.openaiBaseURL) });

async function threeSessions(): Promise<{ id: string; title: string }[]> {
  for (const prompt of ["apple pie", "banana bread", "cherry tart"]) {
    expect((await arbor(["run", prompt])).code).toBe(0);
  }
  const listed = JSON.parse((await arbor(["sessions", "list", "--json"])).stdout) as {
    id: string;
    title: string;
  }[];
  expect(listed).toHaveLength(3);
  return listed;
}

function startArbor(args: string[]): TmuxTerminal {
  const terminal = TmuxTerminal.start({
    cwd: sandbox.project,
    env: sandbox.env(server.openaiBaseURL),
    args,
  });
  terminals.push(terminal);
  return terminal;
}

describe("arbor -r", () => {
  it("lists the sessions with short ids, dates and message counts; typing searches; Enter resumes", async () => {
    const sessions = await threeSessions();
    const terminal = startArbor(["-r"]);
    const screen = await terminal.waitFor("Esc close", 20_000);
    for (const { id } of sessions) {
      // Time-ordered ids share their start: each is shown as its shortest unique prefix.
      expect(screen).toContain(id.slice(0, 8));
      expect(screen).not.toContain(id);
    }
    expect(screen).toMatch(/\d{4}-\d\d-\d\d \d\d:\d\d\s+2 msgs\s+cherry tart/);
    expect(screen).toContain("1/3");
    terminal.type("banana");
    await terminal.waitFor((text) => text.includes("1/1") && !text.includes("apple pie"));
    terminal.press("Enter");
    await terminal.waitFor("answer about bananas", 20_000);
    terminal.type("banana bread again");
    terminal.press("Enter");
    await terminal.waitFor(/answer about bananas[\s\S]*answer about bananas/, 20_000);
    terminal.press("C-c");
    await terminal.waitFor("Press Ctrl+C again to quit.");
    terminal.press("C-c");
    expect(await terminal.exitCode(20_000)).toBe(0);
    // The message went to the picked session: still three sessions, banana's has 4 messages.
    const after = JSON.parse((await arbor(["sessions", "list", "--json"])).stdout) as {
      title: string;
      messageCount: number;
    }[];
    expect(after).toHaveLength(3);
    expect(after.find((s) => s.title === "banana bread")?.messageCount).toBe(4);
  });

  it("Esc leaves without starting a session; a search that matches nothing says so", async () => {
    await threeSessions();
    const terminal = startArbor(["-r"]);
    await terminal.waitFor("Esc close", 20_000);
    terminal.type("durian");
    await terminal.waitFor("no session matches");
    terminal.press("Escape");
    expect(await terminal.exitCode(20_000)).toBe(0);
    expect(terminal.screen()).toContain("No session picked.");
    expect(await sandbox.sessionFiles()).toHaveLength(3);
  });

  it("with no sessions in the directory says so", async () => {
    const terminal = startArbor(["-r"]);
    await terminal.waitFor("no sessions in this directory to resume", 20_000);
    expect(await terminal.exitCode()).not.toBe(0);
  });
});

describe("short ids in sessions list", () => {
  it("shows each id as its shortest unique prefix (at least 8 characters), and each resolves", async () => {
    const sessions = await threeSessions();
    const listed = (await arbor(["sessions", "list"])).stdout.trim().split("\n").slice(1);
    const shown = listed.map((line) => line.split(/\s+/)[0] as string);
    expect(shown).toHaveLength(3);
    for (const short of shown) {
      expect(short.length).toBeGreaterThanOrEqual(8);
      const matching = sessions.filter((s) => s.id.startsWith(short));
      expect(matching).toHaveLength(1);
      expect(short.length).toBeLessThan((matching[0] as { id: string }).id.length);
      const shownSession = await arbor(["sessions", "show", short]);
      expect(shownSession.code).toBe(0);
      expect(shownSession.stdout).toContain((matching[0] as { title: string }).title);
    }
  });
});
