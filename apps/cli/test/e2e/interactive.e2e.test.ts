import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { FakeProviderServer } from "@arbor/providers/test";
import {
  type AgentMessage,
  isEntryOfType,
  openSessionFile,
  type SessionEntry,
} from "@arbor/session-store";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createSandbox, LOGGER_RULE, type Sandbox } from "./e2e-fixture.js";
import { startRoutedServer } from "./routed-fake-server.js";
import { TmuxTerminal } from "./tmux-terminal.js";

let server: FakeProviderServer;
let sandbox: Sandbox;
const terminals: TmuxTerminal[] = [];
let ruleAttempts = 0;

beforeAll(async () => {
  server = await startRoutedServer({
    title: "Talk about fakes",
    summary: "## Goal\nTalk to the fake model.\n\n## Done\n- Two questions answered.",
    prompts: {
      "slow please": {
        blocks: [{ type: "text", text: "streaming slowly ".repeat(60) }],
        chunkSize: 4,
        delayMs: 60,
      },
      "first question": "answer one",
      "second question": "answer two",
      "third question": "answer three",
      "print a greeting": () => {
        ruleAttempts += 1;
        return ruleAttempts === 1
          ? {
              blocks: [{ type: "text", text: "Sure: console.log('hi') will do it." }],
              chunkSize: 4,
            }
          : "Sure: logger.info('hi') will do it.";
      },
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

async function ask(
  terminal: TmuxTerminal,
  prompt: string,
  expected: string | RegExp,
): Promise<string> {
  await terminal.waitFor("/help for commands");
  terminal.type(prompt);
  terminal.press("Enter");
  return terminal.waitFor(expected);
}

async function quit(terminal: TmuxTerminal): Promise<number> {
  terminal.press("C-c");
  await terminal.waitFor("Press Ctrl+C again to quit.");
  terminal.press("C-c");
  return terminal.exitCode();
}

const messagesOf = (entries: readonly SessionEntry[]): AgentMessage[] =>
  entries.flatMap((entry) => (isEntryOfType(entry, "message") ? [entry.message] : []));

describe("arbor in a real terminal", () => {
  it("chats: streams the answer, titles the session, stores both messages, quits on Ctrl+C twice", async () => {
    const terminal = startArbor();
    const screen = await ask(terminal, "hello world", "echo: hello world");
    expect(screen).toContain("you › hello world");
    await terminal.waitFor("Talk about fakes");
    expect(await quit(terminal)).toBe(0);
    const session = await sandbox.openLatestSession();
    const messages = messagesOf(session.getBranch());
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(session.getTitle()).toBe("Talk about fakes");
  });

  it("aborts a streaming answer with Esc: the partial answer stays, marked aborted", async () => {
    const terminal = startArbor();
    await ask(terminal, "slow please", "streaming slowly streaming");
    terminal.press("Escape");
    await terminal.waitFor("[aborted]");
    await terminal.waitFor("/help for commands");
    expect(terminal.screen()).not.toMatch(/error/i);
    expect(await quit(terminal)).toBe(0);
    const session = await sandbox.openLatestSession();
    const answer = messagesOf(session.getBranch()).at(-1) as AgentMessage & { stopReason?: string };
    expect(answer.role).toBe("assistant");
    expect(answer.stopReason).toBe("aborted");
    const text = JSON.stringify(answer.content);
    expect(text).toContain("streaming slowly");
    expect(text.length).toBeLessThan("streaming slowly ".repeat(60).length);
  });

  it("/tree moves the leaf to another branch, and the next prompt continues from there", async () => {
    const terminal = startArbor();
    await ask(terminal, "first question", "answer one");
    await ask(terminal, "second question", "answer two");
    terminal.type("/tree");
    terminal.press("Enter");
    // The tree's key hints show once it listens; their start never wraps on a narrow screen.
    await terminal.waitFor("↑↓ move");
    terminal.type("answer one");
    await terminal.waitFor(/search: answer one/);
    terminal.press("Enter");
    await terminal.waitFor("Enter: go");
    terminal.press("Enter");
    await terminal.waitFor((s) => !s.includes("Session tree"));
    const moved = await ask(terminal, "third question", "answer three");
    expect(moved).not.toContain("answer two");
    expect(await quit(terminal)).toBe(0);
    const session = await sandbox.openLatestSession();
    const path = messagesOf(session.getBranch()).map((message) => JSON.stringify(message.content));
    expect(path.join(" ")).toContain("answer one");
    expect(path.join(" ")).not.toContain("answer two");
    expect(path.join(" ")).toContain("answer three");
    // The abandoned branch is still in the tree.
    expect(JSON.stringify(session.getEntries())).toContain("answer two");
  });

  it("/tree switches filters with Tab and labels the selected entry with Ctrl+L", async () => {
    const terminal = startArbor();
    await ask(terminal, "first question", "answer one");
    terminal.type("/tree");
    terminal.press("Enter");
    await terminal.waitFor("Tab filter (default)");
    terminal.press("Tab");
    await terminal.waitFor("Tab filter (no-tools)");
    terminal.press("Tab");
    await terminal.waitFor("Tab filter (user-only)");
    const userOnly = terminal.screen();
    expect(userOnly).toContain("user: first question");
    expect(userOnly).not.toContain("assistant: answer one");
    terminal.press("C-l");
    await terminal.waitFor("label of");
    terminal.type("milestone");
    terminal.press("Enter");
    await terminal.waitFor("[milestone]");
    terminal.press("Tab");
    await terminal.waitFor("Tab filter (labeled-only)");
    expect(terminal.screen()).toContain("user [milestone]: first question");
    terminal.press("Escape");
    await terminal.waitFor((screen) => !screen.includes("Session tree"));
    expect(await quit(terminal)).toBe(0);
    const session = await sandbox.openLatestSession();
    const question = session
      .getEntries()
      .find((entry) => JSON.stringify(entry).includes("first question"));
    expect(question && session.getLabel(question.id)).toBe("milestone");
    expect(JSON.stringify(session.getEntries())).toContain("answer one");
  });

  it("/label labels the latest message and /fork continues in a new session file", async () => {
    const terminal = startArbor();
    await ask(terminal, "first question", "answer one");
    // The title is stored after the answer; label after it so the label is the newest entry.
    await terminal.waitFor("Talk about fakes");
    terminal.type("/label milestone");
    terminal.press("Enter");
    await terminal.waitFor('"milestone"');
    terminal.type("/fork");
    terminal.press("Enter");
    await terminal.waitFor("Forked into a new session");
    await ask(terminal, "second question", "answer two");
    expect(await quit(terminal)).toBe(0);
    const files = await sandbox.sessionFiles();
    expect(files).toHaveLength(2);
    const sessions = await Promise.all(
      files.map((file) => openSessionFile(file, { readOnly: true })),
    );
    const forked = sessions.find((session) => session.getHeader().parentSession !== undefined);
    const original = sessions.find((session) => session !== forked);
    if (!forked || !original) throw new Error("expected an original and a forked session");
    expect(forked.getHeader().parentSession).toBe(original.location);
    expect(messagesOf(original.getBranch())).toHaveLength(2);
    const labelled = messagesOf(forked.getBranch()).length;
    expect(labelled).toBe(4);
    const answerOne = forked
      .getBranch()
      .find((entry) => JSON.stringify(entry).includes("answer one"));
    expect(answerOne && forked.getLabel(answerOne.id)).toBe("milestone");
  });

  it("/compact stores a compaction with the model's summary; /export writes an HTML file", async () => {
    await sandbox.writeConfig(JSON.stringify({ compaction: { keepRecentTokens: 5 } }));
    const terminal = startArbor();
    await ask(terminal, "first question", "answer one");
    await ask(terminal, "second question", "answer two");
    terminal.type("/compact keep the answers");
    terminal.press("Enter");
    await terminal.waitFor("Compacted");
    terminal.type("/export talk.html");
    terminal.press("Enter");
    await terminal.waitFor("Exported to");
    expect(await quit(terminal)).toBe(0);
    const session = await sandbox.openLatestSession();
    const compaction = session.getBranch().find((entry) => isEntryOfType(entry, "compaction"));
    expect(compaction && isEntryOfType(compaction, "compaction") && compaction.summary).toContain(
      "Two questions answered",
    );
    const html = await readFile(join(sandbox.project, "talk.html"), "utf8");
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(html).toContain("second question");
  });

  it("resumes the latest session of the directory with --continue", async () => {
    const first = startArbor();
    await ask(first, "first question", "answer one");
    expect(await quit(first)).toBe(0);
    const second = startArbor(["--continue"]);
    await second.waitFor("Resumed");
    expect(second.screen()).toContain("answer one");
    await ask(second, "second question", "answer two");
    expect(await quit(second)).toBe(0);
    expect(await sandbox.sessionFiles()).toHaveLength(1);
    const session = await sandbox.openLatestSession();
    expect(messagesOf(session.getBranch())).toHaveLength(4);
  });

  it("shows a stream-rule interrupt as a short notice and the retried answer, never an error", async () => {
    ruleAttempts = 0;
    await sandbox.writeProjectFile(LOGGER_RULE.path, LOGGER_RULE.text);
    const terminal = startArbor();
    const screen = await ask(terminal, "print a greeting", "logger.info('hi')");
    expect(screen).toContain("Stream rule use-the-logger matched");
    expect(screen).not.toMatch(/error|failed/i);
    expect(await quit(terminal)).toBe(0);
    expect(ruleAttempts).toBe(2);
  });

  it("refuses a broken config file with a clear message and a non-zero exit code", async () => {
    await sandbox.writeConfig("{ not json");
    const terminal = startArbor();
    const code = await terminal.exitCode();
    expect(code).not.toBe(0);
    const screen = terminal.screen();
    expect(screen).toContain("config.json is not valid JSON");
    expect(screen).not.toMatch(/\n\s+at /);
  });

  it("says plainly how to configure a provider when none is", async () => {
    const terminal = TmuxTerminal.start({ cwd: sandbox.project, env: { HOME: sandbox.home } });
    terminals.push(terminal);
    expect(await terminal.exitCode()).toBe(1);
    const screen = terminal.screen();
    expect(screen).toContain("no model provider is configured");
    expect(screen).toContain("export OPENAI_API_KEY=");
    expect(screen).toContain('run "arbor demo"');
  });
});
