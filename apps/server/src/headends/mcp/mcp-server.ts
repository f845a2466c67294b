import { SessionNotFoundError } from "@arbor/session-store";
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { AppDeps } from "../../app-deps.js";
import { registerAgentTools } from "./agent-tool.js";
import { sessionMarkdown, sessionTreeJson, withSession } from "./session-documents.js";

/** MCP's "resource not found" error code. */
const RESOURCE_NOT_FOUND = -32002;

/** Reads a session for a resource; another tenant's (or none) is "resource not found". */
async function readForResource<T>(
  deps: AppDeps,
  tenantId: string,
  uri: URL,
  id: unknown,
  use: Parameters<typeof withSession<T>>[3],
): Promise<T> {
  try {
    if (typeof id !== "string") throw new SessionNotFoundError(String(id), tenantId);
    return await withSession(deps, tenantId, id, use);
  } catch (error) {
    if (
      SessionNotFoundError.isInstance(error) ||
      (error as { code?: string }).code === "invalid_session_id"
    )
      throw new McpError(RESOURCE_NOT_FOUND, `Resource not found: ${uri.href}`);
    throw error;
  }
}

/**
 * The MCP server a tenant's MCP session talks to: each agent a tool, each session two
 * resources (`arbor://sessions/<id>` as Markdown, `arbor://sessions/<id>/tree` as JSON) and a
 * `resume` prompt.
 */
export function tenantMcpServer(deps: AppDeps, tenantId: string): McpServer {
  const server = new McpServer(
    { name: "arbor-server", version: deps.version },
    { capabilities: { logging: {} } },
  );
  registerAgentTools(server, deps, tenantId);
  const list = async () => {
    const page = await deps.store.list({ tenant: tenantId, limit: 100 });
    return {
      resources: page.sessions.map((info) => ({
        uri: `arbor://sessions/${info.id}`,
        name: info.title ?? info.id,
        mimeType: "text/markdown",
      })),
    };
  };
  server.registerResource(
    "session",
    new ResourceTemplate("arbor://sessions/{id}", { list }),
    { description: "An Arbor session's current path as Markdown", mimeType: "text/markdown" },
    async (uri, { id }) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: "text/markdown",
          text: await readForResource(deps, tenantId, uri, id, sessionMarkdown),
        },
      ],
    }),
  );
  server.registerResource(
    "session-tree",
    new ResourceTemplate("arbor://sessions/{id}/tree", { list: undefined }),
    { description: "An Arbor session's whole tree as JSON", mimeType: "application/json" },
    async (uri, { id }) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: "application/json",
          text: await readForResource(deps, tenantId, uri, id, sessionTreeJson),
        },
      ],
    }),
  );
  server.registerPrompt(
    "resume",
    {
      description: "Pick up an Arbor session: its path so far, to continue from",
      argsSchema: { session: z.string().max(200).describe("The session id") },
    },
    async ({ session }) => {
      const uri = new URL(`arbor://sessions/${encodeURIComponent(session)}`);
      const text = await readForResource(deps, tenantId, uri, session, sessionMarkdown);
      return {
        description: `Resume session ${session}`,
        messages: [
          {
            role: "user",
            content: {
              type: "text",
              text: `Continue this Arbor session (pass session "${session}" to an agent tool).\n\n${text}`,
            },
          },
        ],
      };
    },
  );
  return server;
}
