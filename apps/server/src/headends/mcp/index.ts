export { agentToolInput, agentToolOutput } from "./agent-tool.js";
export { mcpRoutes } from "./mcp-routes.js";
export { jsonRpcError, type McpSessionLimits, McpSessions } from "./mcp-sessions.js";
