import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { isEntryOfType, SessionNotFoundError } from "@arbor/session-store";
import { type AgentRun, McpServerStartError } from "@arbor/turn-runner";
import { describe, expect, it } from "vitest";
import { recordingExtensions, scriptedHostOptions } from "../../test/host-fixtures.js";
import { defineAgent } from "../definition/index.js";
import { AgentHost } from "./agent-host.js";

/** How often each session heard `session_shutdown`. */
function shutdownsPerSession(log: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of log) {
    if (!line.startsWith("shutdown:")) continue;
    const id = line.slice("shutdown:".length);
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

describe("AgentHost extension lifecycle", () => {
  it("starts a new session with startup and shuts it down exactly once over two closes", async () => {
    const { runner, log } = await recordingExtensions();
    const { options } = scriptedHostOptions([], { extensions: runner });
    const host = await AgentHost.open(options);
    const id = host.session.id;
    expect(log).toEqual([`start:startup:${id}`]);
    await Promise.all([host.close(), host.close()]);
    await host.close();
    expect(log).toEqual([`start:startup:${id}`, `shutdown:${id}`]);
  });

  it("resumes an existing session with resume", async () => {
    const { runner, log } = await recordingExtensions();
    const { options, store } = scriptedHostOptions([], { extensions: runner });
    const existing = await store.create({ cwd: "/project" });
    await existing.close();
    const host = await AgentHost.open({ ...options, create: undefined, sessionId: existing.id });
    await host.close();
    expect(log).toEqual([`start:resume:${existing.id}`, `shutdown:${existing.id}`]);
  });

  it("gives every session one start and one shutdown across switches, a fork and double close", async () => {
    const { runner, log } = await recordingExtensions();
    const { options } = scriptedHostOptions(["one"], { extensions: runner });
    const host = await AgentHost.open(options);
    const first = host.session.id;
    await host.prompt("hello").result;
    const second = (await host.switchSession({ create: { cwd: "/project" } })).id;
    const back = await host.switchSession({ sessionId: first });
    expect(back.id).toBe(first);
    const forked = (await host.fork()).id;
    await host.close();
    await host.close();
    expect(log).toEqual([
      `start:startup:${first}`,
      `shutdown:${first}`,
      `start:new:${second}`,
      `shutdown:${second}`,
      `start:resume:${first}`,
      `shutdown:${first}`,
      `start:fork:${forked}`,
      `shutdown:${forked}`,
    ]);
    // Each tenure of a session ends exactly once: starts and shutdowns pair up.
    const starts = log.filter((line) => line.startsWith("start:")).length;
    expect([...shutdownsPerSession(log).values()].reduce((a, b) => a + b, 0)).toBe(starts);
  });

  it("a switch to a session that does not exist leaves the host, and its extensions, where they were", async () => {
    const { runner, log } = await recordingExtensions();
    const { options } = scriptedHostOptions(["still here"], { extensions: runner });
    const host = await AgentHost.open(options);
    const id = host.session.id;
    const error = await host
      .switchSession({ sessionId: "no-such-session" })
      .catch((e: unknown) => e);
    expect(SessionNotFoundError.isInstance(error)).toBe(true);
    expect(host.session.id).toBe(id);
    expect(log).toEqual([`start:startup:${id}`]);
    expect((await host.prompt("still working?").result).success).toBe(true);
    await host.close();
    expect(log).toEqual([`start:startup:${id}`, `shutdown:${id}`]);
  });

  it("closing during a prompt ends the run and shuts the session down once", async () => {
    const { runner, log } = await recordingExtensions();
    const { options } = scriptedHostOptions(
      [{ blocks: [{ type: "text", text: "x".repeat(500) }], chunkSize: 1, delayMs: 2 }],
      { extensions: runner },
    );
    const host = await AgentHost.open(options);
    const run = host.prompt("go");
    for await (const event of run.events) if (event.type === "text_delta") break;
    await Promise.all([host.close(), host.close()]);
    expect(await run.result).toMatchObject({ success: false, reason: "shutdown" });
    expect(shutdownsPerSession(log).get(host.session.id)).toBe(1);
  });

  it("loads the definition's extension files into the runner once, and they hear the lifecycle", async () => {
    const dir = await mkdtemp(join(tmpdir(), "arbor-host-ext-"));
    try {
      const path = join(dir, "greeter.mjs");
      await writeFile(
        path,
        `export default (arbor) => { arbor.on("session_start", (event) => { globalThis.__arborGreeter = (globalThis.__arborGreeter ?? 0) + 1; }); };\n`,
      );
      const { runner, log } = await recordingExtensions();
      const base = scriptedHostOptions([], { extensions: runner });
      const definition = defineAgent({ ...base.options.agent, extensions: [path] });
      const host = await AgentHost.open({ ...base.options, agent: definition });
      await host.switchSession({ create: { cwd: "/project" } });
      await host.close();
      const again = await AgentHost.open({ ...base.options, agent: definition });
      await again.close();
      expect(runner.extensions.filter((loaded) => loaded.path === path)).toHaveLength(1);
      expect((globalThis as { __arborGreeter?: number }).__arborGreeter).toBe(3);
      expect(log.filter((line) => line.startsWith("start:"))).toHaveLength(3);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("offers the tools of the definition's MCP servers to the model", async () => {
    const { options, model } = scriptedHostOptions([
      { blocks: [{ type: "toolCall", name: "notes_echo", arguments: { text: "hi" } }] },
      "done",
    ]);
    const server = fileURLToPath(new URL("../../test/echo-mcp-server.mjs", import.meta.url));
    const definition = defineAgent({
      ...options.agent,
      mcpServers: [
        { name: "notes", transport: { type: "stdio", command: process.execPath, args: [server] } },
      ],
    });
    const host = await AgentHost.open({ ...options, agent: definition });
    const result = await host.prompt("echo hi").result;
    expect(result.success).toBe(true);
    expect(model.requests[0]?.tools?.map((tool) => tool.name)).toEqual(["notes_echo"]);
    const toolResult = host.session
      .getBranch()
      .find((entry) => isEntryOfType(entry, "message") && entry.message.role === "toolResult");
    expect(JSON.stringify(toolResult)).toContain("echo: hi");
    await host.close();
  });

  it("reports runs extensions start, on every session it takes up", async () => {
    const { runner } = await recordingExtensions();
    await runner.addExtension("asker", (arbor) => {
      arbor.registerCommand("ask", {
        description: "Asks the model",
        handler: async (args) => {
          await arbor.sendUserMessage(args);
        },
      });
    });
    const { options } = scriptedHostOptions(["first reply", "second reply"], {
      extensions: runner,
    });
    const host = await AgentHost.open(options);
    const seen: string[] = [];
    host.onRun((run) => {
      void run.result.then((result) => {
        seen.push(`${result.success}:${host.session.id}`);
      });
    });
    await host.runCommand("ask", "hello");
    await host.waitForIdle();
    await host.switchSession({ create: { cwd: "/project" } });
    await host.runCommand("ask", "again");
    await host.waitForIdle();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(seen).toHaveLength(2);
    expect(seen.every((line) => line.startsWith("true:"))).toBe(true);
    expect(host.session.getBranch().some((entry) => entry.type === "message")).toBe(true);
    await host.close();
  });

  it("lists the extensions' commands, renders their messages and waits for their runs", async () => {
    const { runner } = await recordingExtensions();
    await runner.addExtension("notes", (arbor) => {
      arbor.registerCommand("ask", {
        description: "Asks the model",
        handler: async (args) => {
          await arbor.sendUserMessage(args);
        },
      });
      arbor.registerMessageRenderer("note", (message) => [`note: ${String(message.content)}`]);
    });
    const { options } = scriptedHostOptions(["an answer"], { extensions: runner });
    const host = await AgentHost.open(options);
    expect(host.commands().map((command) => [command.name, command.extensionName])).toEqual([
      ["ask", "notes"],
    ]);
    expect(
      host.renderMessage({ customType: "note", content: "kept", display: true }, { width: 40 }),
    ).toEqual({ lines: ["note: kept"], extensionName: "notes" });
    expect(host.renderMessage({ customType: "other", content: "x", display: true })).toBe(
      undefined,
    );
    // The command's run was started by the extension, not by a prompt of the host.
    const { outcome, run } = await host.runCommand("ask", "hello");
    expect(outcome).toEqual({ status: "done" });
    expect(run).toBeUndefined();
    await host.waitForIdle();
    const answers = host.session
      .getBranch()
      .filter((entry) => isEntryOfType(entry, "message") && entry.message.role === "assistant");
    expect(answers).toHaveLength(1);
    expect(host.state().busy).toBeUndefined();
    await host.close();
  });

  it("hands a run a session_start handler starts to the open option's onRun", async () => {
    const { runner } = await recordingExtensions();
    await runner.addExtension("greeter", (arbor) => {
      arbor.on("session_start", async () => {
        await arbor.sendUserMessage("say hello");
      });
    });
    const { options } = scriptedHostOptions(["hello from the start"], { extensions: runner });
    const runs: AgentRun[] = [];
    const host = await AgentHost.open({ ...options, onRun: (run) => runs.push(run) });
    await host.waitForIdle();
    expect(runs).toHaveLength(1);
    const result = await runs[0]?.result;
    expect(result).toMatchObject({ success: true, finalReport: { value: "hello from the start" } });
    await host.close();
  });

  it("an MCP server that cannot start fails open and leaves no session open", async () => {
    const { runner, log } = await recordingExtensions();
    const base = scriptedHostOptions([], { extensions: runner });
    const definition = defineAgent({
      ...base.options.agent,
      mcpServers: [
        {
          name: "files",
          transport: { type: "stdio", command: join(tmpdir(), "no-such-mcp-server-binary") },
          startupTimeoutMs: 5_000,
        },
      ],
    });
    const error = await AgentHost.open({ ...base.options, agent: definition }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(McpServerStartError);
    expect(log).toEqual([]);
    const { sessions } = await base.store.list({ cwd: "/project" });
    expect(sessions).toHaveLength(1);
    // The session was closed: another writer may open it.
    const reopened = await base.store.open(sessions[0]?.id as string);
    await reopened.close();
  });
});

describe("AgentHost close during a change", () => {
  it("close during a compaction cuts it short and shuts the session down once", async () => {
    const { runner, log } = await recordingExtensions();
    const { options } = scriptedHostOptions(
      [
        "first answer ".repeat(40),
        "second answer ".repeat(40),
        // The summaries compaction asks for (history and a cut turn's start), slowly.
        ...Array(4).fill({
          blocks: [{ type: "text", text: "summary ".repeat(400) }],
          chunkSize: 1,
          delayMs: 5,
        }),
      ],
      {
        extensions: runner,
        agentOptions: {
          compaction: { keepRecentTokens: 1 },
          retryDelayMs: 1,
          sleep: async () => {},
        },
      },
    );
    const host = await AgentHost.open(options);
    await host.prompt("one ".repeat(200)).result;
    await host.prompt("two ".repeat(200)).result;
    const compaction = host.compact().catch((error: unknown) => error);
    expect(host.state().busy).toBe("compact");
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    await host.close();
    // 400 deltas of 5 ms would take 2 s; the compaction was cut short.
    expect(Date.now() - started).toBeLessThan(1_500);
    const outcome = await compaction;
    expect(outcome).toMatchObject({ status: "failed" });
    expect(JSON.stringify((outcome as { error?: unknown }).error)).not.toContain(
      "script_exhausted",
    );
    expect(host.session.getEntries().some((entry) => entry.type === "compaction")).toBe(false);
    expect(shutdownsPerSession(log).get(host.session.id)).toBe(1);
  });

  it("close during a fork waits for it and closes the fork, each session shut down once", async () => {
    const { runner, log } = await recordingExtensions();
    const { options, store } = scriptedHostOptions(["one"], { extensions: runner });
    const host = await AgentHost.open(options);
    await host.prompt("hello").result;
    const original = host.session.id;
    const forking = host.fork();
    await host.close();
    const forked = await forking;
    expect(log).toEqual([
      `start:startup:${original}`,
      `shutdown:${original}`,
      `start:fork:${forked.id}`,
      `shutdown:${forked.id}`,
    ]);
    // Both sessions were closed: a new writer opens each.
    for (const id of [original, forked.id]) {
      const reopened = await store.open(id);
      await reopened.close();
    }
  });
});
