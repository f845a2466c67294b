export { connectMcpServer, type McpConnection } from "./connect-mcp-server.js";
export {
  connectMcpServers,
  type McpConnections,
  McpServersStartError,
} from "./connect-mcp-servers.js";
export type { SkippedMcpTool } from "./mcp-agent-tools.js";
export { McpConfigError, McpError, McpServerStartError, McpToolCallError } from "./mcp-errors.js";
export {
  type McpHttpTransport,
  type McpServerConfig,
  type McpStdioTransport,
  mcpServerConfigSchema,
} from "./mcp-server-config.js";
export { MODEL_TOOL_NAME_PATTERN, modelToolNames } from "./tool-names.js";
