import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { runToolCall } from "../agent-tool.js";
import { connectMcpServer, type McpConnection } from "./connect-mcp-server.js";
import { McpServerStartError } from "./mcp-errors.js";

const TOKEN = "Bearer let-me-in";

function fixtureServer(): McpServer {
  const server = new McpServer({ name: "http-fixture", version: "1.0.0" });
  server.registerTool(
    "shout",
    { description: "Upper-cases the text", inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: "text", text: text.toUpperCase() }] }),
  );
  server.registerTool("refuse", { description: "Always an error" }, async () => ({
    content: [{ type: "text", text: "not allowed" }],
    isError: true,
  }));
  server.registerTool("hang", { description: "Never answers" }, async () => {
    await new Promise(() => {});
    return { content: [] };
  });
  return server;
}

/** A stateful streamable-HTTP MCP endpoint on a real socket, requiring a bearer token. */
async function startHttpServer(): Promise<{ url: string; http: Server }> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.headers.authorization !== TOKEN) {
      res.writeHead(401, { "content-type": "text/plain" }).end("missing or wrong token");
      return;
    }
    const sessionId = req.headers["mcp-session-id"];
    let transport = typeof sessionId === "string" ? sessions.get(sessionId) : undefined;
    if (!transport) {
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (id) => {
          sessions.set(id, created);
        },
      });
      await fixtureServer().connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res);
  };
  const http = createServer((req, res) => {
    handle(req, res).catch(() => res.writeHead(500).end());
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/mcp`, http };
}

const run = (connection: McpConnection, name: string, args: Record<string, unknown> = {}) => {
  const tool = connection.tools.find((candidate) => candidate.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  return runToolCall(
    tool,
    { id: "c1", name, arguments: args },
    { signal: new AbortController().signal, timeoutMs: 10_000 },
  );
};

describe("connectMcpServer over streamable HTTP", () => {
  let url: string;
  let http: Server;
  let remote: McpConnection;
  beforeAll(async () => {
    ({ url, http } = await startHttpServer());
    remote = await connectMcpServer({
      name: "remote",
      transport: { type: "http", url, headers: { authorization: TOKEN } },
      timeoutMs: 300,
    });
  });
  afterAll(async () => {
    await remote.close();
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
  });

  it("lists and calls the tools, sending the configured headers", async () => {
    expect(remote.tools.map((tool) => tool.name)).toEqual([
      "remote_shout",
      "remote_refuse",
      "remote_hang",
    ]);
    expect(await run(remote, "remote_shout", { text: "hello" })).toEqual({
      content: [{ type: "text", text: "HELLO" }],
      isError: false,
    });
  });

  it("turns an error result into an error result and a hung call into a timeout", async () => {
    expect(await run(remote, "remote_refuse")).toEqual({
      content: [{ type: "text", text: "Tool remote_refuse failed: not allowed" }],
      isError: true,
    });
    expect(await run(remote, "remote_hang")).toEqual({
      content: [{ type: "text", text: "Tool remote_hang timed out after 300 ms." }],
      isError: true,
    });
    expect((await run(remote, "remote_shout", { text: "again" })).isError).toBe(false);
  });

  it("ends a call whose connection drops at its timeout, and the next call works", async () => {
    const patient = await connectMcpServer({
      name: "patient",
      transport: { type: "http", url, headers: { authorization: TOKEN } },
      timeoutMs: 1_000,
    });
    try {
      const pending = run(patient, "patient_hang");
      setTimeout(() => http.closeAllConnections(), 100);
      expect(await pending).toEqual({
        content: [{ type: "text", text: "Tool patient_hang timed out after 1000 ms." }],
        isError: true,
      });
      expect(await run(patient, "patient_shout", { text: "back" })).toEqual({
        content: [{ type: "text", text: "BACK" }],
        isError: false,
      });
    } finally {
      await patient.close();
    }
  });

  it("fails to start with the URL and the status when the server refuses", async () => {
    const error = await connectMcpServer({
      name: "unauthorised",
      transport: { type: "http", url },
    }).catch((caught: unknown) => caught);
    expect(McpServerStartError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain(`MCP server "unauthorised" (URL ${url})`);
    expect((error as Error).message).toContain("failed to start: HTTP 401");
  });

  it("names a refused connection", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const error = await connectMcpServer({
      name: "down",
      transport: { type: "http", url: `http://127.0.0.1:${port}/mcp` },
    }).catch((caught: unknown) => caught);
    expect(McpServerStartError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(
      `MCP server "down" (URL http://127.0.0.1:${port}/mcp) failed to start: fetch failed (ECONNREFUSED)`,
    );
  });
});
