import { Hono, type MiddlewareHandler } from "hono";
import type { AppDeps } from "../../app-deps.js";
import { rateLimit } from "../../http/request-limits.js";
import type { ServerEnv } from "../../http/server-env.js";
import { McpSessions } from "./mcp-sessions.js";

/** The MCP headend at `/mcp` (Streamable HTTP), behind the tenant key check and rate limit. */
export function mcpRoutes(
  deps: AppDeps,
  auth: MiddlewareHandler<ServerEnv>,
  sessions = new McpSessions(deps),
) {
  return new Hono<ServerEnv>()
    .use("*", auth)
    .use("*", rateLimit(deps.limits))
    .all("/", (c) => sessions.handle(c));
}
