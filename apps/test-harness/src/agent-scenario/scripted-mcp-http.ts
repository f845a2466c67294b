import { randomBytes, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { pathToFileURL } from "node:url";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { harnessFixturePath } from "./harness-fixture.js";

/** The configuration of a scripted MCP server (see `fixtures/scripted-mcp-tools.mjs`). */
export interface ScriptedMcpConfig {
  tools: {
    name: string;
    description?: string;
    inputSchema?: Record<string, unknown>;
    behaviour?: Record<string, unknown>[];
  }[];
}

interface ScriptedTools {
  list(): Tool[];
  call(params: { name: string; arguments?: Record<string, unknown> }): Promise<CallToolResult>;
}

/** A running scripted MCP server on a loopback port, speaking MCP's streamable HTTP. */
export interface ScriptedMcpHttpServer {
  url: string;
  /** Headers the server requires on every request (a bearer token made for this server). */
  headers: Record<string, string>;
  /** Requests the server turned away for a missing or wrong token. */
  readonly refused: number;
  close(): Promise<void>;
}

async function loadScriptedTools(config: ScriptedMcpConfig): Promise<ScriptedTools> {
  const module = (await import(
    pathToFileURL(harnessFixturePath("scripted-mcp-tools.mjs")).href
  )) as { scriptedTools(config: ScriptedMcpConfig): ScriptedTools };
  return module.scriptedTools(config);
}

/**
 * Starts the harness's scripted MCP tools behind the official SDK's streamable HTTP server
 * transport, on `127.0.0.1` and a free port. Every MCP session gets its own SDK server; the
 * tools (and so their call counts) are shared, as on one real server. Requests without the
 * returned bearer token get 401.
 */
export async function startScriptedMcpHttpServer(
  config: ScriptedMcpConfig,
): Promise<ScriptedMcpHttpServer> {
  const tools = await loadScriptedTools(config);
  const token = `Bearer ${randomBytes(12).toString("hex")}`;
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const sockets = new Set<Socket>();
  let refused = 0;

  const sdkServer = (): Server => {
    const server = new Server(
      { name: "arbor-scripted-mcp-http", version: "1.0.0" },
      { capabilities: { tools: {} } },
    );
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.list() }));
    server.setRequestHandler(CallToolRequestSchema, (request) => tools.call(request.params));
    return server;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.headers.authorization !== token) {
      refused++;
      res.writeHead(401, { "content-type": "text/plain" }).end("missing or wrong bearer token");
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
      created.onclose = () => {
        if (created.sessionId) sessions.delete(created.sessionId);
      };
      await sdkServer().connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res);
  };

  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end(String(error));
    });
  });
  http.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    headers: { Authorization: token },
    get refused() {
      return refused;
    },
    async close() {
      await Promise.all([...sessions.values()].map((t) => t.close().catch(() => undefined)));
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
