import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  type ClientCapabilities,
  PROTOCOL_VERSION,
  type SessionNotification,
  type SessionUpdate,
} from "@agentclientprotocol/sdk/unstable";
import type { FakeProviderServer } from "@arbor/providers/test";
import { isEntryOfType } from "@arbor/session-store";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createSandbox, type Sandbox } from "../e2e/e2e-fixture.js";
import { startRoutedServer } from "../e2e/routed-fake-server.js";
import {
  type AcpProcess,
  agentText,
  FULL_EDITOR,
  startAcp,
  writeFakeConfig,
} from "./acp-client.js";

let server: FakeProviderServer;
let sandbox: Sandbox;
const running: AcpProcess[] = [];
const AFTER_TOOL = "The tool ran.";

beforeAll(async () => {
  server = await startRoutedServer({
    prompts: {
      "say hello": { blocks: [{ type: "text", text: "Hello from the fake model." }], chunkSize: 4 },
      "think first": {
        blocks: [
          { type: "thinking", thinking: "Let me weigh this." },
          { type: "text", text: "Thought it through." },
        ],
      },
      "write please": {
        blocks: [
          {
            type: "toolCall",
            name: "write",
            arguments: { path: "notes/a.txt", content: "from the model\n" },
          },
        ],
      },
      "edit please": {
        blocks: [
          {
            type: "toolCall",
            name: "edit",
            arguments: { path: "a.txt", oldText: "old line", newText: "new line" },
          },
        ],
      },
      "run please": {
        blocks: [
          { type: "toolCall", name: "bash", arguments: { command: "echo from-the-terminal" } },
        ],
      },
      "go slowly": {
        blocks: [
          { type: "text", text: "one two three four five six seven eight nine ten ".repeat(20) },
        ],
        chunkSize: 5,
        delayMs: 40,
      },
      // The fake's Anthropic wire sends a content filter stop as `refusal`.
      "refuse this": {
        blocks: [{ type: "text", text: "I will not." }],
        stopReason: "content_filter",
      },
    },
    afterTool: AFTER_TOOL,
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

async function start(
  editor: Parameters<typeof startAcp>[1] = {},
  env: Record<string, string> = {},
) {
  const acp = await startAcp({ cwd: sandbox.project, env: { HOME: sandbox.home, ...env } }, editor);
  running.push(acp);
  return acp;
}

async function initialize(acp: AcpProcess, capabilities: ClientCapabilities = {}) {
  return acp.connection.agent.request("initialize", {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: capabilities,
  });
}

async function newSession(acp: AcpProcess) {
  return acp.connection.agent.request("session/new", { cwd: sandbox.project, mcpServers: [] });
}

const of = (sessionId: string, updates: readonly SessionNotification[]) =>
  updates.filter((n) => n.sessionId === sessionId).map((n) => n.update);

const prompt = (acp: AcpProcess, sessionId: string, text: string) =>
  acp.connection.agent.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text }],
  });

describe("arbor acp: initialize and authenticate", () => {
  it("negotiates the version, names its capabilities and the configured providers, checks a key", async () => {
    const acp = await start();
    const init = await acp.connection.agent.request("initialize", {
      protocolVersion: PROTOCOL_VERSION + 5,
      clientCapabilities: {},
    });
    expect(init.protocolVersion).toBe(PROTOCOL_VERSION);
    expect(init.agentCapabilities?.loadSession).toBe(true);
    expect(init.agentCapabilities?.promptCapabilities).toMatchObject({
      image: true,
      embeddedContext: true,
    });
    expect(init.agentCapabilities?.mcpCapabilities).toMatchObject({ http: true });
    expect(init.agentCapabilities?.sessionCapabilities).toMatchObject({
      list: {},
      fork: {},
      resume: {},
    });
    expect(init.authMethods?.map((method) => method.id)).toEqual(["fake"]);
    await expect(
      acp.connection.agent.request("authenticate", { methodId: "fake" }),
    ).resolves.toBeDefined();
    await expect(
      acp.connection.agent.request("authenticate", { methodId: "nobody" }),
    ).rejects.toThrow(/no provider named "nobody"/);
  });

  it("asks for authentication when no provider has a key", async () => {
    await writeFile(join(sandbox.home, ".arbor", "config.json"), JSON.stringify({ providers: {} }));
    const acp = await start();
    const init = await initialize(acp);
    expect(init.authMethods).toEqual([]);
    await expect(newSession(acp)).rejects.toMatchObject({ code: -32000 });
  });
});

describe("arbor acp: prompts", () => {
  it("streams the answer as message chunks, the thinking as thought chunks, and ends the turn", async () => {
    const acp = await start();
    await initialize(acp);
    const { sessionId, modes, configOptions } = await newSession(acp);
    expect(modes?.currentModeId).toBe("ask");
    expect(modes?.availableModes.map((mode) => mode.id)).toEqual(["ask", "auto-edit", "yolo"]);
    expect(configOptions?.[0]).toMatchObject({
      id: "model",
      category: "model",
      currentValue: "fake/fake-1",
    });
    const commands = await acp.waitForUpdate(
      (n) => n.update.sessionUpdate === "available_commands_update",
    );
    const names =
      commands.update.sessionUpdate === "available_commands_update"
        ? commands.update.availableCommands.map((command) => command.name)
        : [];
    expect(names).toEqual(expect.arrayContaining(["tree", "fork", "label", "compact", "model"]));

    const response = await prompt(acp, sessionId, "say hello");
    expect(response.stopReason).toBe("end_turn");
    const chunks = of(sessionId, acp.updates).filter(
      (u) => u.sessionUpdate === "agent_message_chunk",
    );
    expect(chunks.length).toBeGreaterThan(1);
    expect(agentText(acp.updates)).toBe("Hello from the fake model.");

    const thinking = await prompt(acp, sessionId, "think first");
    expect(thinking.stopReason).toBe("end_turn");
    const thoughts = of(sessionId, acp.updates).filter(
      (u) => u.sessionUpdate === "agent_thought_chunk",
    );
    expect(
      thoughts
        .map((u) =>
          u.sessionUpdate === "agent_thought_chunk" && u.content.type === "text"
            ? u.content.text
            : "",
        )
        .join(""),
    ).toBe("Let me weigh this.");
    expect(acp.invalid).toEqual([]);
    expect(acp.stderr()).toContain("arbor acp:");
  });

  it("ends a refused answer with the refusal stop reason (on the provider authenticate chose)", async () => {
    await writeFakeConfig(sandbox.home, server.openaiBaseURL, {
      providers: {
        fake: { api: "openai-chat", baseURL: server.openaiBaseURL, apiKey: "test-key" },
        claude: { api: "anthropic-messages", baseURL: server.anthropicBaseURL, apiKey: "test-key" },
      },
    });
    const acp = await start();
    const init = await initialize(acp);
    expect(init.authMethods?.map((method) => method.id)).toEqual(["fake", "claude"]);
    await acp.connection.agent.request("authenticate", { methodId: "claude" });
    const { sessionId, configOptions } = await newSession(acp);
    expect(String(configOptions?.[0]?.currentValue)).toMatch(/^claude\//);
    const refused = await prompt(acp, sessionId, "refuse this");
    expect(refused.stopReason).toBe("refusal");
  });

  it("cancels mid-stream: the turn ends cancelled, the partial answer is stored as aborted", async () => {
    const acp = await start();
    await initialize(acp);
    const { sessionId } = await newSession(acp);
    const answer = prompt(acp, sessionId, "go slowly");
    await acp.waitForUpdate((n) => n.update.sessionUpdate === "agent_message_chunk");
    await acp.connection.agent.notify("session/cancel", { sessionId });
    expect((await answer).stopReason).toBe("cancelled");
    const streamed = agentText(acp.updates);
    expect(streamed.length).toBeGreaterThan(0);
    expect(streamed.length).toBeLessThan(1000);
    // The session stays usable, and its tree valid.
    expect((await prompt(acp, sessionId, "say hello")).stopReason).toBe("end_turn");
    await acp.close();
    const session = await sandbox.openLatestSession();
    const aborted = session
      .getEntries()
      .filter(
        (entry) =>
          isEntryOfType(entry, "message") &&
          (entry.message as { stopReason?: string }).stopReason === "aborted",
      );
    expect(aborted).toHaveLength(1);
    expect(session.getBranch().length).toBeGreaterThan(2);
    await session.close();
  });
});

describe("arbor acp: tool calls and permissions", () => {
  it("asks before a write: allow runs it with a diff shown, reject does not", async () => {
    const answers = ["allow_once", "reject_once"];
    const acp = await start({
      permission: async () => ({
        outcome: { outcome: "selected", optionId: answers.shift() ?? "reject_once" },
      }),
    });
    await initialize(acp);
    const { sessionId } = await newSession(acp);
    expect((await prompt(acp, sessionId, "write please")).stopReason).toBe("end_turn");
    expect(await readFile(join(sandbox.project, "notes/a.txt"), "utf8")).toBe("from the model\n");
    const asked = acp.permissions[0];
    expect(asked?.options.map((option) => option.kind)).toEqual([
      "allow_once",
      "allow_always",
      "reject_once",
      "reject_always",
    ]);
    expect(asked?.toolCall).toMatchObject({ kind: "edit", title: "Write notes/a.txt" });
    const updates = of(sessionId, acp.updates);
    const call = updates.find((u) => u.sessionUpdate === "tool_call");
    expect(call).toMatchObject({ kind: "edit" });
    const view = updates.find(
      (u) => u.sessionUpdate === "tool_call_update" && u.locations && u.locations.length > 0,
    );
    expect(view).toMatchObject({
      locations: [{ path: join(sandbox.project, "notes/a.txt") }],
      content: [
        { type: "diff", path: join(sandbox.project, "notes/a.txt"), newText: "from the model\n" },
      ],
    });
    expect(
      updates.some((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed"),
    ).toBe(true);
    expect(agentText(acp.updates)).toContain(AFTER_TOOL);

    await writeFile(join(sandbox.project, "notes/a.txt"), "mine\n");
    expect((await prompt(acp, sessionId, "write please")).stopReason).toBe("end_turn");
    expect(await readFile(join(sandbox.project, "notes/a.txt"), "utf8")).toBe("mine\n");
    expect(
      of(sessionId, acp.updates).some(
        (u) => u.sessionUpdate === "tool_call_update" && u.status === "failed",
      ),
    ).toBe(true);
    expect(acp.invalid).toEqual([]);
  });

  it("remembers allow always for the project (approvals.json) and reject always for the session", async () => {
    const acp = await start({
      permission: async () => ({ outcome: { outcome: "selected", optionId: "allow_always" } }),
    });
    await initialize(acp);
    const { sessionId } = await newSession(acp);
    await prompt(acp, sessionId, "write please");
    await prompt(acp, sessionId, "write please");
    expect(acp.permissions).toHaveLength(1);
    const approvals = JSON.parse(
      await readFile(join(sandbox.home, ".arbor", "approvals.json"), "utf8"),
    );
    expect(JSON.stringify(approvals)).toContain('"tool":"write"');

    const rejecting = await start({
      permission: async () => ({ outcome: { outcome: "selected", optionId: "reject_always" } }),
    });
    await initialize(rejecting);
    const other = await newSession(rejecting);
    await prompt(rejecting, other.sessionId, "run please");
    await prompt(rejecting, other.sessionId, "run please");
    expect(rejecting.permissions).toHaveLength(1);
    const failed = of(other.sessionId, rejecting.updates).filter(
      (u) => u.sessionUpdate === "tool_call_update" && u.status === "failed",
    );
    expect(failed).toHaveLength(2);
  });

  it("switches the approval mode with session/set_mode: yolo runs a command without asking", async () => {
    const acp = await start();
    await initialize(acp);
    const { sessionId } = await newSession(acp);
    await acp.connection.agent.request("session/set_mode", { sessionId, modeId: "yolo" });
    await acp.waitForUpdate(
      (n) => n.update.sessionUpdate === "current_mode_update" && n.update.currentModeId === "yolo",
    );
    await prompt(acp, sessionId, "run please");
    expect(acp.permissions).toHaveLength(0);
    const done = of(sessionId, acp.updates).find(
      (u) => u.sessionUpdate === "tool_call_update" && u.status === "completed",
    );
    expect(JSON.stringify(done)).toContain("from-the-terminal");
    await expect(
      acp.connection.agent.request("session/set_mode", { sessionId, modeId: "reckless" }),
    ).rejects.toThrow(/not a mode/);
  });

  it("edits through the editor's fs/write_text_file: the buffer changes, the disk does not", async () => {
    const path = join(sandbox.project, "a.txt");
    await writeFile(path, "on disk\n");
    const files = new Map([[path, "first\nold line\nlast\n"]]);
    const acp = await start({ files });
    await initialize(acp, FULL_EDITOR);
    const { sessionId } = await newSession(acp);
    expect((await prompt(acp, sessionId, "edit please")).stopReason).toBe("end_turn");
    expect(files.get(path)).toBe("first\nnew line\nlast\n");
    expect(await readFile(path, "utf8")).toBe("on disk\n");
    const view = of(sessionId, acp.updates).find(
      (u) => u.sessionUpdate === "tool_call_update" && u.content?.some((c) => c.type === "diff"),
    );
    expect(view).toMatchObject({
      content: [{ type: "diff", path, oldText: "old line", newText: "new line" }],
    });
    expect(acp.invalid).toEqual([]);
  });

  it("runs bash in the editor's terminal and shows the terminal in the tool call", async () => {
    const acp = await start({ terminal: true });
    await initialize(acp, FULL_EDITOR);
    const { sessionId } = await newSession(acp);
    expect((await prompt(acp, sessionId, "run please")).stopReason).toBe("end_turn");
    expect(acp.terminals).toEqual([
      { command: "bash", args: ["-c", "echo from-the-terminal"], cwd: sandbox.project },
    ]);
    const updates = of(sessionId, acp.updates);
    expect(
      updates.some(
        (u) =>
          u.sessionUpdate === "tool_call_update" && u.content?.some((c) => c.type === "terminal"),
      ),
    ).toBe(true);
    const done = updates.find(
      (u) => u.sessionUpdate === "tool_call_update" && u.status === "completed",
    );
    expect(JSON.stringify(done)).toContain("from-the-terminal");
    expect(JSON.stringify(done)).toContain("[exit code 0]");
  });
});

/** A transcript of updates, independent of how text was split into chunks. */
function transcript(updates: readonly SessionUpdate[]): string[] {
  const lines: string[] = [];
  const tools = new Map<string, Record<string, unknown>>();
  for (const update of updates) {
    const kind = update.sessionUpdate;
    if (
      kind === "agent_message_chunk" ||
      kind === "agent_thought_chunk" ||
      kind === "user_message_chunk"
    ) {
      const text = update.content.type === "text" ? update.content.text : "";
      const last = lines.at(-1);
      if (last?.startsWith(`${kind}:`)) lines[lines.length - 1] = last + text;
      else lines.push(`${kind}:${text}`);
    } else if (kind === "tool_call" || kind === "tool_call_update") {
      const known = tools.get(update.toolCallId);
      const merged = {
        ...known,
        ...Object.fromEntries(Object.entries(update).filter(([key]) => key !== "sessionUpdate")),
      };
      tools.set(update.toolCallId, merged);
      if (!known) lines.push(`tool:${update.toolCallId}`);
    }
  }
  return lines.map((line) =>
    line.startsWith("tool:") ? `tool:${JSON.stringify(pick(tools.get(line.slice(5))))}` : line,
  );
}

function pick(tool: Record<string, unknown> | undefined) {
  if (!tool) return undefined;
  const { toolCallId, title, kind, status, locations } = tool;
  const content = (tool.content as { type: string }[] | undefined)?.filter(
    (c) => c.type !== "terminal",
  );
  return { toolCallId, title, kind, status, locations, content };
}

describe("arbor acp: the tree over ACP", () => {
  it("loads a session after a restart, replaying its history as it was streamed", async () => {
    const first = await start();
    await initialize(first);
    const { sessionId } = await newSession(first);
    await first.connection.agent.request("session/set_mode", { sessionId, modeId: "yolo" });
    await prompt(first, sessionId, "say hello");
    await prompt(first, sessionId, "think first");
    await prompt(first, sessionId, "write please");
    const live = of(sessionId, first.updates).filter(
      (u) =>
        u.sessionUpdate !== "available_commands_update" &&
        u.sessionUpdate !== "current_mode_update",
    );
    expect(await first.close()).toBe(0);

    const second = await start();
    await initialize(second);
    const loaded = await second.connection.agent.request("session/load", {
      sessionId,
      cwd: sandbox.project,
      mcpServers: [],
    });
    expect(loaded.modes?.currentModeId).toBe("ask");
    const replayed = of(sessionId, second.updates).filter(
      (u) => u.sessionUpdate !== "available_commands_update",
    );
    const withoutUser = transcript(replayed).filter(
      (line) => !line.startsWith("user_message_chunk:"),
    );
    expect(withoutUser).toEqual(transcript(live));
    expect(transcript(replayed).filter((line) => line.startsWith("user_message_chunk:"))).toEqual([
      "user_message_chunk:say hello",
      "user_message_chunk:think first",
      "user_message_chunk:write please",
    ]);
    expect(second.invalid).toEqual([]);
    // Ready for a prompt.
    expect((await prompt(second, sessionId, "say hello")).stopReason).toBe("end_turn");
  });

  it("lists the sessions of a directory, forks one and resumes another", async () => {
    const acp = await start();
    await initialize(acp);
    const a = await newSession(acp);
    await prompt(acp, a.sessionId, "say hello");
    const b = await newSession(acp);
    await prompt(acp, b.sessionId, "think first");
    const list = await acp.connection.agent.request("session/list", { cwd: sandbox.project });
    expect(list.sessions.map((s) => s.sessionId).sort()).toEqual([a.sessionId, b.sessionId].sort());
    expect(list.sessions.every((s) => s.cwd === sandbox.project)).toBe(true);
    const elsewhere = await acp.connection.agent.request("session/list", { cwd: "/nowhere" });
    expect(elsewhere.sessions).toEqual([]);

    const forked = await acp.connection.agent.request("session/fork", {
      sessionId: a.sessionId,
      cwd: sandbox.project,
      mcpServers: [],
    });
    expect(forked.sessionId).not.toBe(a.sessionId);
    expect((await prompt(acp, forked.sessionId, "think first")).stopReason).toBe("end_turn");
    await acp.close();

    const next = await start();
    await initialize(next);
    await next.connection.agent.request("session/resume", {
      sessionId: b.sessionId,
      cwd: sandbox.project,
      mcpServers: [],
    });
    expect(
      of(b.sessionId, next.updates).filter((u) => u.sessionUpdate === "agent_message_chunk"),
    ).toEqual([]);
    await next.connection.agent.request("session/load", {
      sessionId: forked.sessionId,
      cwd: sandbox.project,
      mcpServers: [],
    });
    const history = transcript(of(forked.sessionId, next.updates));
    expect(history).toEqual([
      "user_message_chunk:say hello",
      "agent_message_chunk:Hello from the fake model.",
      "user_message_chunk:think first",
      "agent_thought_chunk:Let me weigh this.",
      "agent_message_chunk:Thought it through.",
    ]);
  });

  it("answers /tree with the tree, /label labels the leaf, and switches models by option", async () => {
    const acp = await start();
    await initialize(acp);
    const { sessionId } = await newSession(acp);
    await prompt(acp, sessionId, "say hello");
    const before = acp.updates.length;
    expect((await prompt(acp, sessionId, "/label first answer")).stopReason).toBe("end_turn");
    expect(agentText(acp.updates.slice(before))).toContain('"first answer"');
    const atTree = acp.updates.length;
    expect((await prompt(acp, sessionId, "/tree")).stopReason).toBe("end_turn");
    const tree = agentText(acp.updates.slice(atTree));
    expect(tree).toContain("say hello");
    expect(tree).toContain("[first answer]");
    const requests = server.requests.length;

    const set = await acp.connection.agent.request("session/set_config_option", {
      sessionId,
      configId: "model",
      value: "fake/fake-2",
    });
    expect(set.configOptions[0]).toMatchObject({ currentValue: "fake/fake-2" });
    await prompt(acp, sessionId, "say hello");
    const sent = server.requests.slice(requests).map((r) => (r.body as { model?: string }).model);
    expect(sent).toContain("fake-2");
    expect(acp.invalid).toEqual([]);
  });
});
