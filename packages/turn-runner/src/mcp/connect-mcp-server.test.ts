import { afterEach, describe, expect, it } from "vitest";
import { stdioFixture } from "../../test/mcp-fixtures.js";
import { type AgentTool, runToolCall } from "../agent-tool.js";
import { connectMcpServer, type McpConnection } from "./connect-mcp-server.js";
import { McpServerStartError } from "./mcp-errors.js";

const open: McpConnection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((connection) => connection.close()));
});

async function connect(...args: Parameters<typeof stdioFixture>) {
  const connection = await connectMcpServer(stdioFixture(...args));
  open.push(connection);
  return connection;
}

function toolNamed(connection: McpConnection, name: string): AgentTool {
  const tool = connection.tools.find((candidate) => candidate.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  return tool;
}

/** Calls a tool the way the turn loop does, returning what the model reads. */
function call(tool: AgentTool, args: Record<string, unknown> = {}, timeoutMs = 10_000) {
  return runToolCall(
    tool,
    { id: "call-1", name: tool.name, arguments: args },
    { signal: new AbortController().signal, timeoutMs },
  );
}

describe("connectMcpServer over stdio", () => {
  it("lists the server's tools under prefixed names with their JSON schemas", async () => {
    const fx = await connect("stdio-server.mjs");
    expect(fx.tools.map((tool) => tool.name)).toEqual([
      "fx_echo",
      "fx_add",
      "fx_picture",
      "fx_resources",
      "fx_fail",
      "fx_explode",
      "fx_crash",
      "fx_hang",
      "fx_big",
    ]);
    expect(fx.skippedTools).toEqual([]);
    const add = toolNamed(fx, "fx_add");
    expect(add.description).toBe("Adds two numbers");
    expect(add.inputJsonSchema).toMatchObject({
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    });
    expect(add.inputJsonSchema).not.toHaveProperty("$schema");
  });

  it("uses the configured prefix, or the server's own names with an empty one", async () => {
    const bare = await connect("stdio-server.mjs", { toolPrefix: "" });
    expect(bare.tools[0]?.name).toBe("echo");
    const custom = await connect("stdio-server.mjs", { toolPrefix: "calc." });
    expect(custom.tools[1]?.name).toBe("calc_add");
  });

  it("calls a tool and returns its text", async () => {
    const fx = await connect("stdio-server.mjs");
    expect(await call(toolNamed(fx, "fx_add"), { a: 2, b: 40 })).toEqual({
      content: [{ type: "text", text: "42" }],
      isError: false,
    });
  });

  it("rejects arguments that break the JSON schema before calling the server", async () => {
    const fx = await connect("stdio-server.mjs");
    const outcome = await call(toolNamed(fx, "fx_add"), { a: "two" });
    expect(outcome.isError).toBe(true);
    expect(outcome.content[0]).toMatchObject({ type: "text" });
    const message = (outcome.content[0] as { text: string }).text;
    expect(message).toContain("Invalid arguments for fx_add");
    expect(message).toContain("arguments/a must be number");
    expect(message).toContain("must have required property 'b'");
  });

  it("maps images, embedded resources and resource links to parts the model reads", async () => {
    const fx = await connect("stdio-server.mjs");
    const picture = await call(toolNamed(fx, "fx_picture"));
    expect(picture.content).toEqual([
      { type: "text", text: "one pixel:" },
      { type: "image", data: expect.stringMatching(/^iVBOR/), mimeType: "image/png" },
    ]);
    const resources = await call(toolNamed(fx, "fx_resources"));
    expect(resources).toEqual({
      isError: false,
      content: [
        { type: "text", text: "[resource <file:///notes.txt>]\nremember the milk" },
        {
          type: "text",
          text: "[resource <file:///data.bin>, application/octet-stream, 4 bytes of binary data, not shown]",
        },
        { type: "text", text: "[resource link big.log <file:///big.log>: the log]" },
      ],
    });
  });

  it("turns an error result and a throwing tool into error results", async () => {
    const fx = await connect("stdio-server.mjs");
    expect(await call(toolNamed(fx, "fx_fail"))).toEqual({
      content: [{ type: "text", text: "Tool fx_fail failed: the disk is full" }],
      isError: true,
    });
    const exploded = await call(toolNamed(fx, "fx_explode"));
    expect(exploded.isError).toBe(true);
    expect(exploded.content).toEqual([
      { type: "text", text: expect.stringMatching(/^Tool fx_explode failed: .*kaboom/) },
    ]);
  });

  it("reports a server that dies mid-call with its stderr, and later calls fail clearly", async () => {
    const fx = await connect("stdio-server.mjs");
    const crashed = await call(toolNamed(fx, "fx_crash"));
    expect(crashed.isError).toBe(true);
    const message = (crashed.content[0] as { text: string }).text;
    expect(message).toContain(
      'Tool fx_crash failed: MCP server "fx" has stopped; its last stderr output:',
    );
    expect(message).toContain("fatal: out of cheese");
    const after = await call(toolNamed(fx, "fx_echo"), { text: "hi" });
    expect(after.isError).toBe(true);
    expect((after.content[0] as { text: string }).text).toContain('MCP server "fx"');
  });

  it("times out a hung tool with the configured timeout and stays usable", async () => {
    const fx = await connect("stdio-server.mjs", { timeoutMs: 300 });
    const hang = toolNamed(fx, "fx_hang");
    expect(hang.timeoutMs).toBe(300);
    const started = Date.now();
    expect(await call(hang, {}, 60_000)).toEqual({
      content: [{ type: "text", text: "Tool fx_hang timed out after 300 ms." }],
      isError: true,
    });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await call(toolNamed(fx, "fx_echo"), { text: "still here" })).toEqual({
      content: [{ type: "text", text: "still here" }],
      isError: false,
    });
  });
});

describe("connectMcpServer start failures", () => {
  it("names a command that does not exist", async () => {
    const error = await connectMcpServer({
      name: "ghost",
      transport: { type: "stdio", command: "arbor-no-such-mcp-server" },
    }).catch((caught: unknown) => caught);
    expect(McpServerStartError.isInstance(error)).toBe(true);
    expect((error as McpServerStartError).serverName).toBe("ghost");
    expect((error as Error).message).toMatch(
      /^MCP server "ghost" \(command "arbor-no-such-mcp-server"\) failed to start: the command was not found/,
    );
  });

  it("shows the stderr tail of a server that exits at once", async () => {
    const error = await connectMcpServer({
      name: "broken",
      transport: {
        type: "stdio",
        command: process.execPath,
        args: ["-e", "console.error('missing API key: set TOKEN'); process.exit(1)"],
      },
    }).catch((caught: unknown) => caught);
    expect(McpServerStartError.isInstance(error)).toBe(true);
    expect((error as McpServerStartError).stderrTail).toBe("missing API key: set TOKEN");
    expect((error as Error).message).toContain('MCP server "broken"');
    expect((error as Error).message).toContain("Last stderr output:\nmissing API key: set TOKEN");
  });

  it("gives up on a server that never answers the handshake", async () => {
    const error = await connectMcpServer({
      name: "mute",
      startupTimeoutMs: 300,
      transport: {
        type: "stdio",
        command: process.execPath,
        args: ["-e", "setInterval(() => {}, 1000)"],
      },
    }).catch((caught: unknown) => caught);
    expect(McpServerStartError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/failed to start: .*timed out/i);
  });

  it("rejects an invalid config with what is wrong", async () => {
    const error = await connectMcpServer({
      name: "bad",
      transport: { type: "http", url: "ftp://example.com" },
    }).catch((caught: unknown) => caught);
    expect((error as Error).name).toBe("McpConfigError");
    expect((error as Error).message).toContain('Invalid config of MCP server "bad"');
    expect((error as Error).message).toContain("transport.url");
  });
});
