import { fileURLToPath } from "node:url";
import type { FakeProviderServer } from "@arbor/providers/test";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createSandbox, type Sandbox } from "./e2e-fixture.js";
import { startRoutedServer } from "./routed-fake-server.js";
import { runArbor } from "./run-binary.js";
import { TmuxTerminal } from "./tmux-terminal.js";

const SERVER = fileURLToPath(new URL("./fixtures/tiny-mcp-server.mjs", import.meta.url));
let fake: FakeProviderServer;
let sandbox: Sandbox;
const terminals: TmuxTerminal[] = [];

beforeAll(async () => {
  fake = await startRoutedServer({ prompts: {} });
});
afterAll(async () => {
  TmuxTerminal.shutdown();
  await fake.close();
});
beforeEach(async () => {
  sandbox = await createSandbox();
});
afterEach(async () => {
  for (const terminal of terminals.splice(0)) terminal.kill();
  await sandbox.remove();
});

function start(): TmuxTerminal {
  const terminal = TmuxTerminal.start({
    cwd: sandbox.project,
    env: sandbox.env(fake.openaiBaseURL),
  });
  terminals.push(terminal);
  return terminal;
}

describe("one setup for every face", () => {
  it("print mode, arbor run and the app send the same tools, MCP tools and system prompt for one folder", async () => {
    await sandbox.writeConfig(
      JSON.stringify({
        autoTitle: false,
        systemPrompt: "You help with tickets.",
        mcpServers: [
          {
            name: "tickets",
            transport: { type: "stdio", command: process.execPath, args: [SERVER] },
          },
        ],
      }),
    );
    await sandbox.writeProjectFile("AGENTS.md", "Answer in one line.\n");
    const lastRequest = () => {
      const request = fake.requests.filter((r) => r.path === "/v1/chat/completions").at(-1);
      const body = (request?.body ?? {}) as {
        tools?: { function: { name: string } }[];
        messages?: { role: string; content: unknown }[];
      };
      return {
        tools: (body.tools ?? []).map((tool) => tool.function.name).sort(),
        system: JSON.stringify(body.messages?.find((m) => m.role === "system")?.content ?? ""),
      };
    };
    const env = sandbox.env(fake.openaiBaseURL);
    const printed = await runArbor(["-p", "hello"], { cwd: sandbox.project, env });
    expect(printed.code, printed.stderr).toBe(0);
    const fromPrint = lastRequest();
    const ran = await runArbor(["run", "hello"], { cwd: sandbox.project, env });
    expect(ran.code, ran.stderr).toBe(0);
    const fromRun = lastRequest();
    const terminal = start();
    await terminal.waitFor("/help for commands", 20_000);
    terminal.type("hello");
    terminal.press("Enter");
    await terminal.waitFor("echo: hello", 20_000);
    const fromApp = lastRequest();
    expect(fromPrint.tools).toEqual(expect.arrayContaining(["tickets_lookup_ticket", "read"]));
    expect(fromPrint.system).toContain("You help with tickets.");
    expect(fromPrint.system).toContain("Answer in one line.");
    expect(fromRun).toEqual(fromPrint);
    expect(fromApp).toEqual(fromPrint);
  });
});

describe("/mcp", () => {
  it("lists the config's stdio MCP server with its tools, offered to the model under its prefix", async () => {
    await sandbox.writeConfig(
      JSON.stringify({
        autoTitle: false,
        mcpServers: [
          {
            name: "tickets",
            transport: { type: "stdio", command: process.execPath, args: [SERVER] },
          },
        ],
      }),
    );
    const terminal = start();
    await terminal.waitFor("/help for commands", 20_000);
    terminal.type("/mcp");
    terminal.press("Enter");
    const screen = await terminal.waitFor("tickets (stdio): 2 tools", 20_000);
    expect(screen).toContain("tickets_lookup_ticket");
    expect(screen).toContain("tickets_list_queues");
    terminal.type("hello");
    terminal.press("Enter");
    await terminal.waitFor("echo: hello", 20_000);
    const request = fake.requests.filter((r) => r.path === "/v1/chat/completions").at(-1);
    const body = (request?.body ?? {}) as { tools?: { function: { name: string } }[] };
    const names = (body.tools ?? []).map((tool) => tool.function.name);
    expect(names).toEqual(
      expect.arrayContaining(["tickets_lookup_ticket", "tickets_list_queues", "read"]),
    );
  });

  it("says how to add servers when none is configured", async () => {
    const terminal = start();
    await terminal.waitFor("/help for commands", 20_000);
    terminal.type("/mcp");
    terminal.press("Enter");
    await terminal.waitFor("No MCP servers.");
  });

  it("a server that does not start is named before the app starts", async () => {
    await sandbox.writeConfig(
      JSON.stringify({
        mcpServers: [
          { name: "broken", transport: { type: "stdio", command: "/nonexistent/mcp-server" } },
        ],
      }),
    );
    const terminal = start();
    const screen = await terminal.waitFor(/__ARBOR_EXIT__\d+/, 40_000);
    expect(screen).toContain("an MCP server of the config did not start");
    expect(screen).toContain("broken");
  });
});
