import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ScriptedModel, type ScriptedResponseInput } from "@arbor/providers/test";
import type { SessionInfo } from "@arbor/session-store";
import { render } from "ink-testing-library";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { HOSTILE_TEXT } from "../output/hostile-text.test-util.js";
import { redactSecrets } from "../output/index.js";
import { ChatApp } from "./chat-app.js";
import { ChatController } from "./chat-controller.js";
import { openTestHost } from "./chat-host.test-util.js";
import { inputReady } from "./ink-input.test-util.js";

const tick = (ms = 30) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * What must not reach the terminal from session text. (ink itself writes SGR colour
 * sequences, `ESC[…m`, so ESC alone is not the test: the hostile sequences are.)
 */
const HOSTILE_RAW = [
  "\u001b]52",
  "\u001b]0;",
  "\u001b]2;",
  "\u001b[2J",
  "\u001b[H",
  "\u009b",
  "\u0007",
  "\b",
  "\r",
  "\u202e",
  "\u2066",
  "\u0000",
];

function expectNoHostileRaw(frame: string): void {
  for (const raw of HOSTILE_RAW) expect(frame, JSON.stringify(raw)).not.toContain(raw);
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "arbor-hostile-ui-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const KEY = "sk-ui-7d2f5a9c1e";

async function hostileApp(answers: ScriptedResponseInput[]) {
  const model = new ScriptedModel({ responses: answers });
  const { host } = await openTestHost({ model, cwd: dir });
  const session = host.session;
  await session.appendMessage({ role: "user", content: `stored ${HOSTILE_TEXT}`, timestamp: 1 });
  await session.appendMessage({
    role: "assistant",
    content: [{ type: "text", text: `stored answer ${HOSTILE_TEXT}\nnext line` }],
    timestamp: 2,
  } as never);
  await session.setTitle(`title ${HOSTILE_TEXT}`);
  const controller = new ChatController({
    host,
    rules: { rules: [], warnings: [] },
    selectModel: () => model,
    redact: (text) => redactSecrets(text, [KEY]),
  });
  const info: SessionInfo = {
    id: `other ${HOSTILE_TEXT}`,
    path: "memory:other",
    title: `picker ${HOSTILE_TEXT}`,
    name: undefined,
    cwd: dir,
    created: new Date(0),
    modified: new Date(0),
    messageCount: 1,
    firstUserMessage: "x",
    parentSession: undefined,
  };
  const app = render(
    <ChatApp controller={controller} cwd={dir} listSessions={async () => [info]} />,
  );
  await inputReady(app.stdin);
  const frames = () => app.frames.join("\n");
  const send = async (text: string) => {
    app.stdin.write(text);
    await tick();
    app.stdin.write("\r");
  };
  const waitFor = (text: string) =>
    vi.waitFor(() => expect(app.lastFrame() ?? "").toContain(text), { timeout: 10_000 });
  return { app, session, frames, send, waitFor, controller };
}

describe("the interactive app shows hostile session text as escapes", () => {
  it("in the stored transcript, the streamed answer, the footer title, /tree and /sessions", async () => {
    const { app, frames, send, waitFor } = await hostileApp([`streamed ${HOSTILE_TEXT}`]);
    await waitFor("stored answer \\x1b]52");
    await waitFor("· title");
    await send("hi");
    await waitFor("streamed \\x1b]52");
    await send("/tree");
    await waitFor("Esc close");
    app.stdin.write("\u001b");
    await tick();
    await send("/sessions");
    await waitFor("Esc close");
    await waitFor("picker \\x1b]52");
    app.stdin.write("\u001b");
    await tick();
    expectNoHostileRaw(frames());
  });

  it("in notices that quote session text, and /export never derives a path from the id without sanitising it", async () => {
    const { frames, send, waitFor, session } = await hostileApp([]);
    await send("/title");
    await waitFor("Title: title \\x1b]52");
    const target = join(dir, "notes.html");
    await writeFile(target, "keep me");
    await send("/export notes.html");
    await waitFor("already exists");
    await waitFor("/export --force notes.html");
    expect(await readFile(target, "utf8")).toBe("keep me");
    await send("/export --force notes.html");
    await waitFor("Exported to");
    expect(await readFile(target, "utf8")).toContain("<html");
    expect(session.id).not.toContain("/");
    expectNoHostileRaw(frames());
  });

  it("never shows the configured API key in notices: a failed answer, a command error", async () => {
    const { app, send, waitFor, controller } = await hostileApp([
      { error: { kind: "auth_error", message: `invalid api key ${KEY}` } },
    ]);
    await send("hi");
    await waitFor("invalid api key [redacted]");
    controller.notify(`Could not open ${KEY}.jsonl`, "error");
    await waitFor("Could not open [redacted].jsonl");
    expect(app.frames.join("\n")).not.toContain(KEY);
  });
});
