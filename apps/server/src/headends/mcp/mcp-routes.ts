import { Hono } from "hono";
import type { AppDeps } from "../../app-deps.js";
import { tenantAuth } from "../../http/bearer-auth.js";
import { rateLimit } from "../../http/request-limits.js";
import type { ServerEnv } from "../../http/server-env.js";
import { McpSessions } from "./mcp-sessions.js";

/** The MCP headend at `/mcp` (Streamable HTTP), behind the tenant key check and rate limit. */
export function mcpRoutes(deps: AppDeps, sessions = new McpSessions(deps)) {
  return new Hono<ServerEnv>()
    .use("*", tenantAuth(deps.keys))
    .use("*", rateLimit(deps.limits))
    .all("/", (c) => sessions.handle(c));
}
