export {
  type CliMcpServers,
  connectCliMcpServers,
  type McpServerSummary,
  mcpSummaryText,
} from "./cli-mcp-servers.js";
