import { FakeProviderServer, type ScriptedResponseInput } from "@arbor/providers/test";
import { isEntryOfType } from "@arbor/session-store";
import { SUMMARIZER_SYSTEM_PROMPT } from "@arbor/turn-runner";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createSandbox, type Sandbox } from "./e2e-fixture.js";
import { runArbor } from "./run-binary.js";
import { TmuxTerminal } from "./tmux-terminal.js";

type WireMessage = { role?: string; content?: unknown };

/** Reads of the big file per prompt before the model answers. */
const READS = 12;
/** The agent's requests so far (summaries not counted): every (READS+1)th one answers. */
let agentCalls = 0;

/**
 * A provider with a small window: asked anything, it reads `big.txt` {@link READS} times,
 * then answers (counted here, as a compaction may summarize the prompt away). It reports the input tokens it was sent (chars/4), as real providers do,
 * so the context guard sees the session grow.
 */
function answer(body: Record<string, unknown>): ScriptedResponseInput {
  const messages = (Array.isArray(body.messages) ? body.messages : []) as WireMessage[];
  const usage = { input: Math.ceil(JSON.stringify(messages).length / 4), output: 20 };
  const system = messages.find((message) => message.role === "system")?.content;
  if (typeof system === "string" && system.startsWith(SUMMARIZER_SYSTEM_PROMPT.slice(0, 40))) {
    return { blocks: [{ type: "text", text: "## Goal\nRead big.txt again and again." }], usage };
  }
  agentCalls += 1;
  if (agentCalls % (READS + 1) !== 0) {
    return {
      blocks: [{ type: "toolCall", name: "read", arguments: { path: "big.txt" } }],
      usage,
    };
  }
  return { blocks: [{ type: "text", text: `Read big.txt ${READS} times.` }], usage };
}

let server: FakeProviderServer;
let sandbox: Sandbox;
const terminals: TmuxTerminal[] = [];

beforeAll(async () => {
  server = await FakeProviderServer.start({ fallback: (body) => answer(body) });
});
afterAll(async () => {
  TmuxTerminal.shutdown();
  await server.close();
});
beforeEach(async () => {
  sandbox = await createSandbox();
  agentCalls = 0;
  // About 1,000 tokens a read: a dozen reads and the tools pass a 16k window's limit.
  await sandbox.writeProjectFile("big.txt", `${"the quick brown fox jumps. ".repeat(148)}\n`);
  await sandbox.writeConfig(
    JSON.stringify({
      autoTitle: false,
      defaultProvider: "small",
      providers: {
        small: {
          api: "openai-chat",
          baseURL: server.openaiBaseURL,
          apiKey: "test-key",
          model: "small-window",
          models: [
            {
              id: "small-window",
              contextWindow: 16_384,
              maxOutputTokens: 2_048,
              pricing: { input: 0, output: 0 },
            },
          ],
        },
      },
    }),
  );
});
afterEach(async () => {
  for (const terminal of terminals.splice(0)) terminal.kill();
  await sandbox.remove();
});

/** The chat requests of the agent (not the summaries), and whether each carried tools. */
function agentRequests(): Array<{ tools: boolean }> {
  return server.requests
    .filter((request) => request.path === "/v1/chat/completions")
    .map((request) => request.body as { messages?: WireMessage[]; tools?: unknown[] })
    .filter((body) => {
      const system = body.messages?.find((message) => message.role === "system")?.content;
      return !(
        typeof system === "string" && system.startsWith(SUMMARIZER_SYSTEM_PROMPT.slice(0, 40))
      );
    })
    .map((body) => ({ tools: Array.isArray(body.tools) && body.tools.length > 0 }));
}

async function compactionEntries(): Promise<number> {
  const session = await sandbox.openLatestSession();
  return session.getEntries().filter((entry) => isEntryOfType(entry, "compaction")).length;
}

describe("a session across the context limit", () => {
  it("compacts in print mode, twice over two prompts, and keeps its tools", {
    timeout: 120_000,
  }, async () => {
    server.requests.length = 0;
    const env = { HOME: sandbox.home };
    const first = await runArbor(["-p", "read the big file"], { cwd: sandbox.project, env });
    expect(first.stderr).toContain("Compacted the earlier conversation");
    expect(first.stdout).toBe(`Read big.txt ${READS} times.\n`);
    expect(first.code).toBe(0);
    const second = await runArbor(["-c", "-p", "read it again"], { cwd: sandbox.project, env });
    expect(second.code).toBe(0);
    expect(second.stdout).toBe(`Read big.txt ${READS} times.\n`);
    expect(second.stderr).toContain("Compacted the earlier conversation");
    for (const output of [first.stderr, second.stderr]) {
      expect(output).not.toContain("Context limit reached");
    }
    const requests = agentRequests();
    expect(requests).toHaveLength(2 * (READS + 1));
    expect(requests.every((request) => request.tools)).toBe(true);
    expect(await compactionEntries()).toBeGreaterThanOrEqual(2);
  });

  it("compacts in the interactive app, twice, and keeps its tools", {
    timeout: 180_000,
  }, async () => {
    server.requests.length = 0;
    const terminal = TmuxTerminal.start({
      cwd: sandbox.project,
      env: { HOME: sandbox.home },
    });
    terminals.push(terminal);
    for (const prompt of ["read the big file", "read it again"]) {
      await terminal.waitFor("/help for commands", 30_000);
      terminal.type(prompt);
      terminal.press("Enter");
      await terminal.waitFor(
        (screen) =>
          screen.split(`Read big.txt ${READS} times.`).length - 1 >=
          (prompt === "read it again" ? 2 : 1),
        60_000,
      );
    }
    const screen = await terminal.waitFor("Compacted the earlier conversation");
    expect(screen).not.toContain("Context limit reached");
    const requests = agentRequests();
    expect(requests).toHaveLength(2 * (READS + 1));
    expect(requests.every((request) => request.tools)).toBe(true);
    expect(await compactionEntries()).toBeGreaterThanOrEqual(2);
    terminal.type("/quit");
    terminal.press("Enter");
    expect(await terminal.exitCode(30_000)).toBe(0);
  });
});
