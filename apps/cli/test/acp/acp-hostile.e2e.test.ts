import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { PROTOCOL_VERSION } from "@agentclientprotocol/sdk/unstable";
import type { FakeProviderServer } from "@arbor/providers/test";
import { isEntryOfType, openSessionFile } from "@arbor/session-store";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createSandbox, type Sandbox } from "../e2e/e2e-fixture.js";
import { startRoutedServer } from "../e2e/routed-fake-server.js";
import { runArbor } from "../e2e/run-binary.js";
import { ARBOR_BIN } from "../e2e/tmux-terminal.js";
import { type AcpProcess, agentText, startAcp, writeFakeConfig } from "./acp-client.js";

let server: FakeProviderServer;
let sandbox: Sandbox;
const running: AcpProcess[] = [];

beforeAll(async () => {
  server = await startRoutedServer({
    prompts: {
      "say hello": "Hello from the fake model.",
      "write please": {
        blocks: [{ type: "toolCall", name: "write", arguments: { path: "a.txt", content: "x\n" } }],
      },
      "go slowly": {
        blocks: [{ type: "text", text: "one two three four five six seven eight ".repeat(40) }],
        chunkSize: 5,
        delayMs: 40,
      },
    },
    afterTool: "The tool ran.",
  });
});
afterAll(async () => {
  await server.close();
});
beforeEach(async () => {
  sandbox = await createSandbox();
  await writeFakeConfig(sandbox.home, server.openaiBaseURL);
});
afterEach(async () => {
  for (const acp of running.splice(0)) await acp.close();
  await sandbox.remove();
});

/** `arbor acp` driven with raw lines, to send what no SDK would. */
function rawAcp() {
  const child = spawn(process.execPath, [ARBOR_BIN, "acp"], {
    cwd: sandbox.project,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: sandbox.home },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const replies: Record<string, unknown>[] = [];
  const waiters: (() => void)[] = [];
  createInterface({ input: child.stdout }).on("line", (line) => {
    replies.push(JSON.parse(line) as Record<string, unknown>);
    for (const wake of waiters.splice(0)) wake();
  });
  const next = async (match: (reply: Record<string, unknown>) => boolean) => {
    for (;;) {
      const found = replies.find(match);
      if (found) return found;
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  return {
    send: (line: string) => child.stdin.write(`${line}\n`),
    reply: (id: unknown) =>
      next((reply) => reply.id === id && ("result" in reply || "error" in reply)),
    next,
    close: () =>
      new Promise<number | null>((resolve) => {
        child.on("exit", resolve);
        child.stdin.end();
      }),
  };
}

describe("arbor acp: hostile input", () => {
  it("prints its help, and refuses a wrong flag before speaking the protocol", async () => {
    const help = await runArbor(["acp", "--help"], {
      cwd: sandbox.project,
      env: { HOME: sandbox.home },
    });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Agent Client Protocol");
    const wrong = await runArbor(["acp", "--max-turns", "0"], {
      cwd: sandbox.project,
      env: { HOME: sandbox.home },
    });
    expect(wrong.code).toBe(2);
    expect(wrong.stdout).toBe("");
    expect(wrong.stderr).toContain("is not a number of turns");
  });

  it("answers malformed JSON-RPC, unknown methods and unknown sessions with errors, and keeps serving", async () => {
    const acp = rawAcp();
    acp.send("{ not json");
    expect(await acp.next((reply) => reply.id === null)).toMatchObject({ error: { code: -32700 } });
    acp.send("42");
    acp.send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} },
      }),
    );
    expect(await acp.reply(1)).toMatchObject({ result: { protocolVersion: PROTOCOL_VERSION } });
    acp.send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "session/teleport", params: {} }));
    expect(await acp.reply(2)).toMatchObject({ error: { code: -32601 } });
    acp.send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 3,
        method: "session/prompt",
        params: { sessionId: "no-such-session", prompt: [{ type: "text", text: "hi" }] },
      }),
    );
    expect(JSON.stringify(await acp.reply(3))).toContain("no-such-session");
    acp.send(
      JSON.stringify({ jsonrpc: "2.0", id: 4, method: "session/prompt", params: { sessionId: 7 } }),
    );
    expect(await acp.reply(4)).toMatchObject({ error: { code: -32602 } });
    acp.send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 5,
        method: "session/load",
        params: {
          sessionId: "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
          cwd: sandbox.project,
          mcpServers: [],
        },
      }),
    );
    expect(JSON.stringify(await acp.reply(5))).toContain("error");
    acp.send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 6,
        method: "session/new",
        params: { cwd: sandbox.project, mcpServers: [] },
      }),
    );
    expect(await acp.reply(6)).toMatchObject({ result: { sessionId: expect.any(String) } });
    expect(await acp.close()).toBe(0);
  });

  it("counts a permission request the editor never answers as a reject, and the run ends cleanly", async () => {
    const acp = await startAcp(
      {
        cwd: sandbox.project,
        env: { HOME: sandbox.home, ARBOR_ACP_PERMISSION_TIMEOUT_MS: "1500" },
      },
      { permission: () => new Promise(() => undefined) },
    );
    running.push(acp);
    await acp.connection.agent.request("initialize", {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: {},
    });
    const { sessionId } = await acp.connection.agent.request("session/new", {
      cwd: sandbox.project,
      mcpServers: [],
    });
    const response = await acp.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "write please" }],
    });
    expect(response.stopReason).toBe("end_turn");
    expect(acp.permissions).toHaveLength(1);
    await expect(readFile(join(sandbox.project, "a.txt"), "utf8")).rejects.toThrow();
    expect(
      acp.updates.some(
        (n) => n.update.sessionUpdate === "tool_call_update" && n.update.status === "failed",
      ),
    ).toBe(true);
    expect(agentText(acp.updates)).toContain("The tool ran.");
  });

  it("stores the answer as aborted and releases the lock when the editor closes stdin mid-answer", async () => {
    const acp = await startAcp({ cwd: sandbox.project, env: { HOME: sandbox.home } });
    await acp.connection.agent.request("initialize", {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: {},
    });
    const { sessionId } = await acp.connection.agent.request("session/new", {
      cwd: sandbox.project,
      mcpServers: [],
    });
    void acp.connection.agent
      .request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go slowly" }] })
      .catch(() => undefined);
    await acp.waitForUpdate((n) => n.update.sessionUpdate === "agent_message_chunk");
    expect(await acp.close()).toBe(0);
    const [file] = await sandbox.sessionFiles();
    // Opening for writing takes the lock: it was released.
    const session = await openSessionFile(file ?? "");
    const answers = session
      .getEntries()
      .filter((entry) => isEntryOfType(entry, "message") && entry.message.role === "assistant");
    expect(
      answers.map((entry) => (entry as { message: { stopReason?: string } }).message.stopReason),
    ).toEqual(["aborted"]);
    await session.close();
  });

  it("refuses a huge prompt with a clear error, stores nothing of it, and takes the next prompt", async () => {
    const acp = await startAcp({ cwd: sandbox.project, env: { HOME: sandbox.home } });
    running.push(acp);
    await acp.connection.agent.request("initialize", {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: {},
    });
    const { sessionId } = await acp.connection.agent.request("session/new", {
      cwd: sandbox.project,
      mcpServers: [],
    });
    const huge = "x".repeat(6 * 1024 * 1024);
    await expect(
      acp.connection.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: huge }],
      }),
    ).rejects.toThrow(/at most 4194304/);
    const response = await acp.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "say hello" }],
    });
    expect(response.stopReason).toBe("end_turn");
    const [file] = await sandbox.sessionFiles();
    expect((await readFile(file ?? "", "utf8")).length).toBeLessThan(100_000);
  });
});
