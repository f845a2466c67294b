import type { FakeProviderServer } from "@arbor/providers/test";
import { isEntryOfType, openSessionFile, type SessionEntry } from "@arbor/session-store";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createSandbox, type Sandbox } from "./e2e-fixture.js";
import { startRoutedServer } from "./routed-fake-server.js";
import { runArbor } from "./run-binary.js";
import { TmuxTerminal } from "./tmux-terminal.js";

let server: FakeProviderServer;
let sandbox: Sandbox;
const terminals: TmuxTerminal[] = [];
const SLOW = "streaming slowly ".repeat(80);

beforeAll(async () => {
  server = await startRoutedServer({
    prompts: {
      "slow please": { blocks: [{ type: "text", text: SLOW }], chunkSize: 4, delayMs: 60 },
      "plain question": "a plain answer",
    },
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

function startArbor(args: string[] = []): TmuxTerminal {
  const terminal = TmuxTerminal.start({
    cwd: sandbox.project,
    env: sandbox.env(server.openaiBaseURL),
    args,
  });
  terminals.push(terminal);
  return terminal;
}

const arbor = (args: string[], signal?: NodeJS.Signals) =>
  runArbor(args, {
    cwd: sandbox.project,
    env: sandbox.env(server.openaiBaseURL),
    ...(signal
      ? { signal, interruptWhen: (stdout: string) => /streaming|"text_delta"/.test(stdout) }
      : {}),
  });

async function storedEntries(): Promise<SessionEntry[]> {
  const files = await sandbox.sessionFiles();
  expect(files).toHaveLength(1);
  const session = await openSessionFile(files[0] as string, { readOnly: true });
  expect(session.verify()).toEqual([]);
  const entries = session.getEntries();
  await session.close();
  return entries;
}

function messages(entries: SessionEntry[]) {
  return entries.flatMap((entry) => (isEntryOfType(entry, "message") ? [entry] : []));
}

async function expectAbortedPartial(): Promise<void> {
  const answers = messages(await storedEntries()).filter((e) => e.message.role === "assistant");
  expect(answers).toHaveLength(1);
  const answer = answers[0]?.message as { stopReason?: string; content: { text?: string }[] };
  expect(answer.stopReason).toBe("aborted");
  const text = answer.content.map((part) => part.text ?? "").join("");
  expect(text.length).toBeGreaterThan(0);
  expect(SLOW.startsWith(text)).toBe(true);
}

describe("SIGTERM and SIGHUP during an answer", () => {
  it("arbor run stores the partial answer as aborted and releases the lock", async () => {
    for (const [signal, code] of [
      ["SIGTERM", 143],
      ["SIGHUP", 129],
    ] as const) {
      await sandbox.remove();
      sandbox = await createSandbox();
      const stopped = await arbor(["run", "slow please"], signal);
      expect(stopped.code, signal).toBe(code);
      expect(stopped.stderr).toContain(`stopped by ${signal}`);
      await expectAbortedPartial();
      const next = await arbor(["-c", "-p", "plain question"]);
      expect(next.stderr).not.toMatch(/lock/i);
      expect(next.code).toBe(0);
      expect(next.stdout).toContain("a plain answer");
    }
  });

  it("print mode too (-p, streaming events so the signal comes mid-answer)", async () => {
    const stopped = await arbor(["-p", "--output-format", "stream-json", "slow please"], "SIGTERM");
    expect(stopped.code).toBe(143);
    await expectAbortedPartial();
  });

  it("the interactive app stores the partial answer as aborted and a second arbor -c opens it", async () => {
    const terminal = startArbor();
    await terminal.waitFor("/help for commands");
    terminal.type("slow please");
    terminal.press("Enter");
    await terminal.waitFor("streaming slowly streaming");
    terminal.signalApp("SIGTERM");
    expect(await terminal.exitCode(20_000)).toBe(143);
    await expectAbortedPartial();
    const next = startArbor(["-c"]);
    await next.waitFor("Resumed", 20_000);
    expect(next.screen()).not.toMatch(/locked/i);
    next.type("plain question");
    next.press("Enter");
    await next.waitFor("a plain answer");
  });

  it("closing the terminal (SIGHUP to the app) stores the partial answer and frees the session", async () => {
    const terminal = startArbor();
    await terminal.waitFor("/help for commands");
    terminal.type("slow please");
    terminal.press("Enter");
    await terminal.waitFor("streaming slowly streaming");
    terminal.signalApp("SIGHUP");
    expect(await terminal.exitCode(20_000)).toBe(129);
    await expectAbortedPartial();
    const next = await arbor(["-c", "-p", "plain question"]);
    expect(next.code).toBe(0);
  });
});

describe("resuming after a SIGKILL mid-answer", () => {
  async function killMidAnswer(): Promise<void> {
    const terminal = startArbor();
    await terminal.waitFor("/help for commands");
    terminal.type("slow please");
    terminal.press("Enter");
    await terminal.waitFor("streaming slowly streaming");
    terminal.signalApp("SIGKILL");
    await terminal.exitCode(20_000);
    const stored = messages(await storedEntries());
    expect(stored.map((e) => e.message.role)).toEqual(["user"]);
  }

  /** The user messages stored, and whether any of them follows another one directly. */
  async function userMessages() {
    const entries = await storedEntries();
    const users = messages(entries).filter((e) => e.message.role === "user");
    const ids = new Set(users.map((e) => e.id));
    return { users, stacked: users.some((e) => e.parentId !== null && ids.has(e.parentId)) };
  }

  it("the app offers to retry the unanswered message; yes sends it as a sibling, not a second copy", async () => {
    await killMidAnswer();
    const terminal = startArbor(["-c"]);
    await terminal.waitFor("Retry the last message?", 20_000);
    terminal.type("y");
    await terminal.waitFor(/streaming slowly[\s\S]*streaming slowly/, 20_000);
    terminal.press("Escape");
    await terminal.waitFor("[aborted]", 20_000);
    terminal.press("C-c");
    await terminal.waitFor("Press Ctrl+C again to quit.");
    terminal.press("C-c");
    await terminal.exitCode(20_000);
    const { users, stacked } = await userMessages();
    expect(users.map((e) => e.message.content)).toEqual(["slow please", "slow please"]);
    expect(stacked).toBe(false);
    // Both copies hang from the same parent (the session's start).
    expect(new Set(users.map((e) => e.parentId)).size).toBe(1);
  });

  it("no leaves the message as it is", async () => {
    await killMidAnswer();
    const terminal = startArbor(["-c"]);
    await terminal.waitFor("Retry the last message?", 20_000);
    terminal.type("n");
    await terminal.waitFor((screen) => !screen.includes("Retry the last message?"));
    terminal.press("C-c");
    await terminal.waitFor("Press Ctrl+C again to quit.");
    terminal.press("C-c");
    await terminal.exitCode(20_000);
    expect((await userMessages()).users).toHaveLength(1);
  });

  it("arbor -c -p without a prompt retries it", async () => {
    await killMidAnswer();
    const retried = await arbor(["-c", "-p", "--output-format", "json"]);
    expect(retried.code).toBe(0);
    expect(retried.stderr).toContain("retrying the last message");
    expect(JSON.parse(retried.stdout).text).toBe(SLOW);
    const { users, stacked } = await userMessages();
    expect(users).toHaveLength(2);
    expect(stacked).toBe(false);
  });

  it("arbor -c -p without a prompt and nothing unanswered is still a usage error", async () => {
    await arbor(["-p", "plain question"]);
    const result = await arbor(["-c", "-p"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("print mode needs a prompt");
  });
});
