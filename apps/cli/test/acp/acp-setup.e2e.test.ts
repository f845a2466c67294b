/*
 * `arbor acp` runs on the user's setup as `arbor` does: stream rules (an interrupt is a
 * thought naming the rule), extensions (their questions are permission requests, their
 * notifications messages), and the editor's MCP servers beside the config's.
 */
import { copyFile, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type McpServer, PROTOCOL_VERSION } from "@agentclientprotocol/sdk/unstable";
import type { FakeProviderServer } from "@arbor/providers/test";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createSandbox, LOGGER_RULE, type Sandbox } from "../e2e/e2e-fixture.js";
import { startRoutedServer } from "../e2e/routed-fake-server.js";
import { type AcpProcess, agentText, startAcp, writeFakeConfig } from "./acp-client.js";

const examples = fileURLToPath(new URL("../../../../examples/extensions/", import.meta.url));
const MCP_SERVER = fileURLToPath(new URL("../e2e/fixtures/tiny-mcp-server.mjs", import.meta.url));

let server: FakeProviderServer;
let sandbox: Sandbox;
const running: AcpProcess[] = [];
let greetingAttempts = 0;

beforeAll(async () => {
  server = await startRoutedServer({
    prompts: {
      "print a greeting": () => {
        greetingAttempts += 1;
        return greetingAttempts % 2 === 1
          ? {
              blocks: [{ type: "text", text: "Sure: console.log('hi') will do it, and more." }],
              chunkSize: 4,
            }
          : "Sure: logger.info('hi') will do it.";
      },
      "say hello": "Hello from the fake model.",
      "clean up": {
        blocks: [{ type: "toolCall", name: "bash", arguments: { command: "rm old.txt" } }],
      },
    },
    afterTool: "Done with the tool.",
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

async function open(
  editor: Parameters<typeof startAcp>[1] = {},
  args: string[] = [],
  mcpServers: McpServer[] = [],
) {
  const acp = await startAcp({ cwd: sandbox.project, env: { HOME: sandbox.home }, args }, editor);
  running.push(acp);
  await acp.connection.agent.request("initialize", {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: {},
  });
  const { sessionId } = await acp.connection.agent.request("session/new", {
    cwd: sandbox.project,
    mcpServers,
  });
  const prompt = (text: string) =>
    acp.connection.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
  return { acp, sessionId, prompt };
}

describe("arbor acp on the user's setup", () => {
  it("shows a stream rule's interrupt as a thought naming the rule, then the retried answer", async () => {
    await sandbox.writeProjectFile(LOGGER_RULE.path, LOGGER_RULE.text);
    const { acp, prompt } = await open();
    expect((await prompt("print a greeting")).stopReason).toBe("end_turn");
    const thoughts = acp.updates
      .map((n) =>
        n.update.sessionUpdate === "agent_thought_chunk" && n.update.content.type === "text"
          ? n.update.content.text
          : "",
      )
      .join("");
    expect(thoughts).toContain('Stream rule "use-the-logger" interrupted the answer');
    expect(agentText(acp.updates)).toContain("logger.info('hi')");
    expect(acp.invalid).toEqual([]);
  });

  it("turns an extension's select into a permission request and its notification into a message", async () => {
    const dir = join(sandbox.home, ".arbor", "extensions");
    await mkdir(dir, { recursive: true });
    await copyFile(join(examples, "permission-gate.ts"), join(dir, "permission-gate.ts"));
    await writeFile(join(sandbox.project, "old.txt"), "keep me\n");
    const answers = ["2", "1"];
    const { acp, sessionId, prompt } = await open({
      permission: async () => ({
        outcome: { outcome: "selected", optionId: answers.shift() ?? "2" },
      }),
    });
    await acp.connection.agent.request("session/set_mode", { sessionId, modeId: "yolo" });
    await prompt("clean up");
    expect(acp.permissions[0]?.toolCall.title).toContain("Allow this command?");
    expect(acp.permissions[0]?.options.map((option) => option.name)).toEqual([
      "Allow once",
      "Allow for this session",
      "Deny",
    ]);
    expect(await readFile(join(sandbox.project, "old.txt"), "utf8")).toBe("keep me\n");
    await prompt("clean up");
    await expect(readFile(join(sandbox.project, "old.txt"), "utf8")).rejects.toThrow();
    expect(agentText(acp.updates)).toContain("[permission-gate] Commands matching");
  });

  it("runs an extension's command: its confirm is a permission request, its input a message, its prompt a run", async () => {
    const dir = join(sandbox.home, ".arbor", "extensions");
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, "ask.ts"),
      [
        "export default function ask(arbor: any) {",
        '  arbor.registerCommand("ask", {',
        '    description: "Asks the user, then says hello",',
        "    handler: async (_args: string, ctx: any) => {",
        '      const sure = await ctx.ui.confirm("Proceed?", "It will say hello");',
        '      const name = await ctx.ui.input("Your name?");',
        '      ctx.ui.notify("confirm=" + sure + " input=" + name);',
        '      return sure ? "say hello" : undefined;',
        "    },",
        "  });",
        "}",
        "",
      ].join("\n"),
    );
    const { acp, prompt } = await open({
      permission: async () => ({ outcome: { outcome: "selected", optionId: "yes" } }),
    });
    const commands = await acp.waitForUpdate(
      (n) => n.update.sessionUpdate === "available_commands_update",
    );
    expect(JSON.stringify(commands.update)).toContain('"name":"ask"');
    expect((await prompt("/ask")).stopReason).toBe("end_turn");
    expect(acp.permissions[0]?.toolCall.title).toContain("Proceed?: It will say hello");
    const text = agentText(acp.updates);
    expect(text).toContain('asked for text "Your name?"');
    expect(text).toContain("confirm=true input=undefined");
    expect(text).toContain("Hello from the fake model.");
  });

  it("connects the editor's MCP servers for the session beside the config's", async () => {
    const { prompt } = await open(
      {},
      [],
      [{ name: "tickets", command: process.execPath, args: [MCP_SERVER], env: [] }],
    );
    await prompt("hello");
    const request = server.requests.filter((r) => r.path === "/v1/chat/completions").at(-1);
    const body = (request?.body ?? {}) as { tools?: { function: { name: string } }[] };
    const tools = (body.tools ?? []).map((tool) => tool.function.name);
    expect(tools).toEqual(expect.arrayContaining(["tickets_lookup_ticket", "read", "bash"]));
  });
});
