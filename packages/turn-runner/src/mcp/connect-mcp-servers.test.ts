import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { stdioFixture } from "../../test/mcp-fixtures.js";
import { connectMcpServers, McpServersStartError } from "./connect-mcp-servers.js";
import { McpConfigError, McpServerStartError } from "./mcp-errors.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "arbor-mcp-servers-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** A fixture server that writes its pid to a file named after it. */
const tracked = (name: string) => {
  const config = stdioFixture("stdio-server.mjs", { name });
  if (config.transport.type === "stdio") {
    config.transport.env = { FIXTURE_PID_FILE: join(dir, `${name}.pid`) };
  }
  return config;
};
const pidOf = async (name: string) => Number(await readFile(join(dir, `${name}.pid`), "utf8"));

describe("connectMcpServers", () => {
  it("connects several servers, offers all their tools and closes them all", async () => {
    const mcp = await connectMcpServers([tracked("one"), tracked("two")]);
    expect(mcp.servers.map((server) => server.name)).toEqual(["one", "two"]);
    expect(
      mcp.tools.filter((tool) => tool.name.endsWith("_echo")).map((tool) => tool.name),
    ).toEqual(["one_echo", "two_echo"]);
    const pids = [await pidOf("one"), await pidOf("two")];
    expect(pids.every(isRunning)).toBe(true);
    await mcp.close();
    expect(pids.some(isRunning)).toBe(false);
  });

  it("stops the servers that started when another fails, and names the failing one", async () => {
    const error = await connectMcpServers([
      tracked("good"),
      { name: "missing", transport: { type: "stdio", command: "arbor-no-such-mcp-server" } },
    ]).catch((caught: unknown) => caught);
    expect(McpServerStartError.isInstance(error)).toBe(true);
    expect((error as McpServerStartError).serverName).toBe("missing");
    expect(isRunning(await pidOf("good"))).toBe(false);
  });

  it("lists every failure when several servers fail", async () => {
    const error = await connectMcpServers([
      { name: "a", transport: { type: "stdio", command: "arbor-no-such-a" } },
      { name: "b", transport: { type: "stdio", command: "arbor-no-such-b" } },
    ]).catch((caught: unknown) => caught);
    expect(McpServersStartError.isInstance(error)).toBe(true);
    expect((error as McpServersStartError).failures.map((f) => f.serverName)).toEqual(["a", "b"]);
    expect((error as Error).message).toMatch(/^2 MCP servers failed to start \("a", "b"\)/);
    expect((error as Error).message).toContain('command "arbor-no-such-b"');
  });

  it("refuses two servers of one name, and tool names used by two servers", async () => {
    const sameName = await connectMcpServers([tracked("x"), tracked("x")]).catch(
      (caught: unknown) => caught,
    );
    expect(McpConfigError.isInstance(sameName)).toBe(true);
    expect((sameName as Error).message).toContain('Two MCP servers are named "x"');

    const clash = await connectMcpServers([
      { ...tracked("p"), toolPrefix: "" },
      { ...tracked("q"), toolPrefix: "" },
    ]).catch((caught: unknown) => caught);
    expect(McpConfigError.isInstance(clash)).toBe(true);
    expect((clash as Error).message).toContain('Tool name "echo" of MCP server "q"');
    expect(isRunning(await pidOf("p"))).toBe(false);
  });
});
