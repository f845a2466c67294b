import { randomUUID } from "node:crypto";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Context } from "hono";
import type { AppDeps } from "../../app-deps.js";
import { sendEachWrite } from "../../http/send-each-write.js";
import type { ServerEnv } from "../../http/server-env.js";
import { tenantMcpServer } from "./mcp-server.js";

/** An MCP session: its server and transport, for one tenant. */
interface McpSession {
  tenantId: string;
  server: McpServer;
  transport: WebStandardStreamableHTTPServerTransport;
  lastUsed: number;
}

/** What bounds the MCP sessions one process holds. */
export interface McpSessionLimits {
  /** The most sessions held; the least recently used is closed to make room. Default 256. */
  maxSessions?: number;
  /** A session unused this long is closed. Default 30 minutes. */
  idleMs?: number;
}

/** The response, calling `done` once its body was read to the end or cancelled. */
function releasedAtEnd(response: Response, done: () => void): Response {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done: ended } = await reader.read();
      if (ended) {
        done();
        controller.close();
      } else controller.enqueue(value);
    },
    cancel(reason) {
      done();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, headers: response.headers });
}

/** A JSON-RPC error response with an HTTP status. */
export function jsonRpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "content-type": "application/json" },
  });
}

/**
 * The MCP sessions of this process (Streamable HTTP keeps a session per client: progress,
 * cancellation and elicitation travel on it). Each belongs to the tenant whose key opened it;
 * another key's requests on it are 404, as an unknown session's are. Bounded by
 * {@link McpSessionLimits}; a client whose session was closed initializes again.
 */
export class McpSessions {
  private readonly open = new Map<string, McpSession>();
  private readonly maxSessions: number;
  private readonly idleMs: number;

  constructor(
    private readonly deps: AppDeps,
    limits: McpSessionLimits = {},
  ) {
    this.maxSessions = limits.maxSessions ?? 256;
    this.idleMs = limits.idleMs ?? 30 * 60_000;
  }

  /** How many sessions are open. */
  get size(): number {
    return this.open.size;
  }

  /** Answers one request on `/mcp` (POST, GET or DELETE). */
  async handle(c: Context<ServerEnv>): Promise<Response> {
    const tenantId = c.get("owner").tenantId;
    const id = c.req.header("mcp-session-id");
    if (id !== undefined) {
      const session = this.open.get(id);
      if (!session || session.tenantId !== tenantId) {
        return jsonRpcError(404, -32001, "Session not found; initialize a new one");
      }
      // Kept in order of use: the first is the least recently used.
      this.open.delete(id);
      this.open.set(id, session);
      session.lastUsed = Date.now();
      // Progress leaves as it comes (see sendEachWrite); the socket gets its corking back after.
      const writeThrough = sendEachWrite(c);
      const response = await session.transport.handleRequest(c.req.raw);
      if (response.body) return releasedAtEnd(response, writeThrough.restore);
      writeThrough.restore();
      return response;
    }
    await this.makeRoom();
    const server = tenantMcpServer(this.deps, tenantId);
    const session: McpSession = {
      tenantId,
      server,
      lastUsed: Date.now(),
      transport: new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => {
          this.open.set(sessionId, session);
        },
        onsessionclosed: (sessionId) => {
          this.open.delete(sessionId);
        },
        maxRequestBodySize: this.deps.limits.bodyBytes,
      }),
    };
    await server.connect(session.transport);
    const response = await session.transport.handleRequest(c.req.raw);
    // Anything but an initialize request opened nothing: let its server go.
    if (session.transport.sessionId === undefined) await server.close();
    return response;
  }

  /** Closes every session. */
  async close(): Promise<void> {
    const all = [...this.open.values()];
    this.open.clear();
    await Promise.all(all.map((session) => session.server.close().catch(() => undefined)));
  }

  /** Closes idle sessions, and the least recently used one while the limit is reached. */
  private async makeRoom(): Promise<void> {
    const now = Date.now();
    for (const [id, session] of this.open) {
      if (now - session.lastUsed < this.idleMs && this.open.size < this.maxSessions) break;
      this.open.delete(id);
      await session.server.close().catch(() => undefined);
    }
  }
}
