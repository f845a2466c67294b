import { cp, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FakeProviderServer, type ScriptedResponseInput } from "@arbor/providers/test";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createSandbox, type Sandbox } from "./e2e-fixture.js";
import { TmuxTerminal } from "./tmux-terminal.js";

// `arbor --agent` runs the repository's example support desk in the interactive app, in a
// real terminal, through the real OpenAI adapter against the fake server, which answers
// each agent by its system prompt: the front desk routes to tech, tech asks its log-reader
// sub-agent, tone-check (the handoff) gives the final answer.

const examples = fileURLToPath(new URL("../../../../examples/agents/", import.meta.url));

const call = (name: string, args: Record<string, unknown>): ScriptedResponseInput => ({
  blocks: [{ type: "toolCall", id: `c_${name}`, name, arguments: args }],
});

function systemPrompt(body: Record<string, unknown>): string {
  const messages = (body.messages ?? []) as { role: string; content: unknown }[];
  const system = messages.find((message) => message.role === "system");
  return typeof system?.content === "string" ? system.content : JSON.stringify(system?.content);
}

function lastRole(body: Record<string, unknown>): string | undefined {
  return ((body.messages ?? []) as { role: string }[]).at(-1)?.role;
}

const TECH_ANSWER = "1. Retry the upload. 2. Raise your proxy timeout.";
const LOG_ANSWER = "The proxy closed the connection after 30 s.";
const FINAL_ANSWER = "Sorry! 1. Retry the upload. 2. Raise your proxy timeout.";

/** When set, the log reader answers slowly (a run to stop or kill mid-way). */
let slowLogReader = false;
const SLOW_TEXT = "reading the logs ".repeat(300);

function supportDesk(body: Record<string, unknown>): ScriptedResponseInput {
  const system = systemPrompt(body);
  if (system.includes("front desk")) {
    return call("router__handoff-to", { agent: "tech", message: "upload fails: ECONNRESET" });
  }
  if (system.includes("technical problems")) {
    return lastRole(body) === "tool"
      ? TECH_ANSWER
      : call("agent__log-reader", { error: "ECONNRESET" });
  }
  if (system.includes("error message")) {
    return slowLogReader
      ? { blocks: [{ type: "text", text: SLOW_TEXT }], chunkSize: 8, delayMs: 40 }
      : LOG_ANSWER;
  }
  if (system.includes("friendly")) return FINAL_ANSWER;
  return "unexpected agent";
}

let server: FakeProviderServer;
let sandbox: Sandbox;
const terminals: TmuxTerminal[] = [];

beforeAll(async () => {
  server = await FakeProviderServer.start({ fallback: (body) => supportDesk(body) });
});
afterAll(async () => {
  TmuxTerminal.shutdown();
  await server.close();
});
beforeEach(async () => {
  slowLogReader = false;
  sandbox = await createSandbox();
  await sandbox.writeConfig(JSON.stringify({ autoTitle: false }));
  await cp(join(examples, "support-desk"), join(sandbox.project, "agents"), { recursive: true });
});
afterEach(async () => {
  for (const terminal of terminals.splice(0)) terminal.kill();
  await sandbox.remove();
});

function startArbor(args: string[]): TmuxTerminal {
  const terminal = TmuxTerminal.start({
    cwd: sandbox.project,
    env: sandbox.env(server.openaiBaseURL),
    args,
    height: 60,
  });
  terminals.push(terminal);
  return terminal;
}

async function quit(terminal: TmuxTerminal): Promise<number> {
  terminal.press("C-c");
  await terminal.waitFor("Press Ctrl+C again to quit.");
  terminal.press("C-c");
  return terminal.exitCode();
}

/** The stored `arbor.orchestration.child` records of a session file, in order. */
async function childRecords(file: string): Promise<{ agentPath: string; outcome: string }[]> {
  const lines = (await readFile(file, "utf8")).trim().split("\n");
  return lines
    .map(
      (line) =>
        JSON.parse(line) as { customType?: string; data?: { agentPath: string; outcome: string } },
    )
    .filter((entry) => entry.customType === "arbor.orchestration.child")
    .map((entry) => ({
      agentPath: entry.data?.agentPath ?? "",
      outcome: entry.data?.outcome ?? "",
    }));
}

/** The root session's file: the one that is nobody's child. */
async function rootFile(): Promise<string> {
  for (const file of await sandbox.sessionFiles()) {
    if (!(await readFile(file, "utf8")).includes('"arbor.orchestration.ancestry"')) return file;
  }
  throw new Error("no root session");
}

/** The session file whose ancestry names `agentPath` (a child of the run). */
async function childFile(agentPath: string): Promise<string> {
  for (const file of await sandbox.sessionFiles()) {
    const text = await readFile(file, "utf8");
    if (text.includes(`"agentPath":"${agentPath}","role"`)) return file;
  }
  throw new Error(`no child session of ${agentPath}`);
}

async function askSupportDesk(terminal: TmuxTerminal): Promise<string> {
  await terminal.waitFor("/help for commands");
  terminal.type("My upload fails with ECONNRESET");
  terminal.press("Enter");
  return terminal.waitFor(
    (screen) => screen.includes(FINAL_ANSWER) && screen.includes("/help for commands"),
    20_000,
  );
}

describe("arbor --agent in a real terminal", () => {
  it("shows routing, the sub-agent call and the handoff, then opens child sessions from /tree and goes back", async () => {
    const terminal = startArbor(["--agent", "agents/front-desk.md"]);
    const screen = await askSupportDesk(terminal);
    expect(screen).toContain("agent front-desk.md");
    // A new session is not announced as resumed (the agent file's entry is not a conversation).
    expect(screen).not.toContain("Resumed");
    expect(screen).toMatch(/↪ routed to front-desk:tech ✓ succeeded · \d+ tokens/);
    expect(screen).toMatch(/⚙ sub-agent front-desk:tech:log-reader ✓ succeeded · \d+ tokens/);
    expect(screen).toMatch(/⇢ handoff to front-desk:tone-check ✓ succeeded/);
    // Each streamed answer carries the name of the agent giving it.
    expect(screen).toContain("front-desk:tech ›");
    expect(screen).toContain("front-desk:tone-check ›");
    expect(screen).toContain("Answered by front-desk:tone-check.");

    terminal.type("/tree");
    terminal.press("Enter");
    // The tree's key hints show once it listens; their start never wraps on a narrow screen.
    await terminal.waitFor("↑↓ move");
    terminal.type("routed");
    const tree = await terminal.waitFor("search: routed");
    expect(tree).toMatch(/child: ↪ routed to front-desk:tech ✓ succeeded/);
    terminal.press("Enter");
    const tech = await terminal.waitFor("Its child sessions:");
    expect(tech).toContain("Child session (read-only) front-desk:tech");
    expect(tech).toContain(TECH_ANSWER);
    // A grandchild opens the same way; Esc goes back one level at a time.
    terminal.press("Enter");
    const logReader = await terminal.waitFor(LOG_ANSWER);
    expect(logReader).toContain("front-desk:tech › front-desk:tech:log-reader");
    terminal.press("Escape");
    await terminal.waitFor((s) => s.includes("Its child sessions:") && !s.includes(LOG_ANSWER));
    terminal.press("Escape");
    await terminal.waitFor("Enter open the child session");
    terminal.press("Escape");
    await terminal.waitFor((s) => !s.includes("Session tree") && s.includes("/help for commands"));
    expect(await quit(terminal)).toBe(0);

    // Every agent worked in a session of its own: the root and three children.
    expect(await sandbox.sessionFiles()).toHaveLength(4);
  });

  it("resumes with -c on the agent file the session ran on; a deleted child session is marked, not fatal", async () => {
    const first = startArbor(["--agent", "agents/front-desk.md"]);
    await askSupportDesk(first);
    expect(await quit(first)).toBe(0);
    await rm(await childFile("front-desk:tech"));

    const terminal = startArbor(["-c"]);
    // The handoff's answer is read from its session; the deleted destination's is not there.
    const resumed = await terminal.waitFor(
      (s) => s.includes("/help for commands") && s.includes(FINAL_ANSWER),
    );
    expect(resumed).not.toContain("front-desk:tech ›");
    expect(resumed).toContain("front-desk:tone-check ›");
    expect(resumed).toMatch(/\(the agent file this\s+session ran on\)/);
    expect(resumed).toContain("agent front-desk.md");
    terminal.type("/tree");
    terminal.press("Enter");
    // The tree's key hints show once it listens; their start never wraps on a narrow screen.
    await terminal.waitFor("↑↓ move");
    terminal.type("routed");
    await terminal.waitFor(
      (s) => s.includes("search: routed") && s.includes("[session file missing]"),
    );
    terminal.press("Enter");
    const view = await terminal.waitFor("cannot be shown");
    expect(view).toContain("its session file is missing");
    terminal.press("Escape");
    await terminal.waitFor("Enter open the child session");
    terminal.press("Escape");
    await terminal.waitFor((s) => !s.includes("Session tree"));
    // The app still answers through the agent file after the resume.
    terminal.type("My upload fails again");
    terminal.press("Enter");
    await terminal.waitFor((s) => s.split(FINAL_ANSWER).length > 2, 20_000);
    expect(await quit(terminal)).toBe(0);
  });

  it("SIGTERM during a sub-agent call stops every agent: each child's outcome is stored as aborted (exit 143)", async () => {
    slowLogReader = true;
    const terminal = startArbor(["--agent", "agents/front-desk.md"]);
    await terminal.waitFor("/help for commands");
    terminal.type("My upload fails with ECONNRESET");
    terminal.press("Enter");
    await terminal.waitFor("⚙ sub-agent front-desk:tech:log-reader … running", 20_000);
    terminal.signalApp("SIGTERM");
    expect(await terminal.exitCode(20_000)).toBe(143);
    expect(await childRecords(await rootFile())).toEqual([
      { agentPath: "front-desk:tech", outcome: "running" },
      { agentPath: "front-desk:tech", outcome: "aborted" },
    ]);
    const tech = await childRecords(await childFile("front-desk:tech"));
    expect(tech.at(-1)).toEqual({ agentPath: "front-desk:tech:log-reader", outcome: "aborted" });
  });

  it("after a SIGKILL during a sub-agent call, arbor -c records the children as interrupted and shows it", async () => {
    slowLogReader = true;
    const first = startArbor(["--agent", "agents/front-desk.md"]);
    await first.waitFor("/help for commands");
    first.type("My upload fails with ECONNRESET");
    first.press("Enter");
    await first.waitFor("⚙ sub-agent front-desk:tech:log-reader … running", 20_000);
    first.signalApp("SIGKILL");
    await first.exitCode(20_000);
    slowLogReader = false;

    const terminal = startArbor(["-c"]);
    const screen = await terminal.waitFor("/help for commands");
    expect(screen).toMatch(/↪ routed to front-desk:tech ✗ interrupted/);
    expect(screen).toContain("2 child run(s) of an agent file stopped with arbor");
    terminal.type("/tree");
    terminal.press("Enter");
    // The tree's key hints show once it listens; their start never wraps on a narrow screen.
    await terminal.waitFor("↑↓ move");
    terminal.type("routed");
    await terminal.waitFor("search: routed");
    terminal.press("Enter");
    // The child's own sub-agent was recorded in the child's session too.
    await terminal.waitFor("front-desk:tech:log-reader (subagent, interrupted)");
    terminal.press("Escape");
    await terminal.waitFor("Enter open the child session");
    terminal.press("Escape");
    await terminal.waitFor((s) => !s.includes("Session tree"));
    expect(await quit(terminal)).toBe(0);
    const tech = await childRecords(await childFile("front-desk:tech"));
    expect(tech.at(-1)).toEqual({
      agentPath: "front-desk:tech:log-reader",
      outcome: "interrupted",
    });
  });

  it("refuses to resume on a remembered agent file that no longer loads, saying which (exit 2)", async () => {
    const first = startArbor(["--agent", "agents/front-desk.md"]);
    await first.waitFor("/help for commands");
    expect(await quit(first)).toBe(0);
    await rm(join(sandbox.project, "agents", "front-desk.md"));
    const terminal = startArbor(["-c"]);
    expect(await terminal.exitCode()).toBe(2);
    const screen = terminal.screen();
    expect(screen).toContain("front-desk.md");
    expect(screen).toMatch(/The session was started with the agent file/);
    expect(screen).not.toContain("/help for commands");
  });

  it.each([
    ["a missing agent file", "agents/nobody.md", /nobody\.md/],
    ["an unknown key", "agents/misspelt.md", /misspelt\.md.*advisers/s],
    ["a cycle", "agents/loop-a.md", /cycle/i],
  ])("refuses %s before the app opens, naming it (exit 2)", async (_, file, message) => {
    const front = "---\nmodels: [openai/gpt-4.1-mini]\n";
    await sandbox.writeProjectFile(
      "agents/misspelt.md",
      `${front}advisers: [tech.md]\n---\nHelp.\n`,
    );
    await sandbox.writeProjectFile("agents/loop-a.md", `${front}handoff: loop-b.md\n---\nA.\n`);
    await sandbox.writeProjectFile("agents/loop-b.md", `${front}handoff: loop-a.md\n---\nB.\n`);
    const modelCalls = () => server.requests.filter((request) => request.method === "POST").length;
    const before = modelCalls();
    const terminal = startArbor(["--agent", file]);
    expect(await terminal.exitCode()).toBe(2);
    const screen = terminal.screen();
    expect(screen).toMatch(message);
    expect(screen).not.toContain("/help for commands");
    expect(screen).not.toMatch(/\n\s+at /);
    expect(modelCalls()).toBe(before);
    expect(await sandbox.sessionFiles()).toEqual([]);
  });
});
