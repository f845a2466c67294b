import {
  type AgentTool,
  connectMcpServers,
  type McpConnections,
  McpError,
  type McpServerConfig,
} from "@arbor/orchestration";
import { CliError } from "../cli-error.js";

/** What `/mcp` shows of one connected server. */
export interface McpServerSummary {
  name: string;
  /** `stdio` or `http`. */
  transport: string;
  /** The tool names the model sees. */
  tools: string[];
  /** Listed tools not offered to the model, with the reason. */
  skipped: { name: string; reason: string }[];
}

/** The MCP servers of the config, connected: their tools for the agent, a summary for `/mcp`. */
export interface CliMcpServers {
  tools: AgentTool[];
  summaries: McpServerSummary[];
  close(): Promise<void>;
}

const NONE: CliMcpServers = { tools: [], summaries: [], close: async () => undefined };

/**
 * Starts the config's MCP servers (stdio and streamable HTTP) through the turn runner's
 * MCP client. None configured: nothing is started.
 * @throws CliError naming the servers that failed to start and why
 */
export async function connectCliMcpServers(
  configs: readonly McpServerConfig[] | undefined,
): Promise<CliMcpServers> {
  if (!configs?.length) return NONE;
  let connections: McpConnections;
  try {
    connections = await connectMcpServers([...configs]);
  } catch (error) {
    if (McpError.isInstance(error)) {
      throw new CliError(`an MCP server of the config did not start: ${error.message}`, {
        hint: 'Check "mcpServers" in the config file (command, args, url), or remove the server.',
        cause: error,
      });
    }
    throw error;
  }
  const transports = new Map(configs.map((config) => [config.name, config.transport.type]));
  return {
    tools: connections.tools,
    summaries: connections.servers.map((server) => ({
      name: server.name,
      transport: transports.get(server.name) ?? "?",
      tools: server.tools.map((tool) => tool.name),
      skipped: server.skippedTools.map((tool) => ({ name: tool.name, reason: tool.reason })),
    })),
    close: () => connections.close(),
  };
}

/** The text `/mcp` shows: each server, its transport and its tools. */
export function mcpSummaryText(summaries: readonly McpServerSummary[]): string {
  if (summaries.length === 0) {
    return 'No MCP servers. Add them to "mcpServers" in ~/.arbor/config.json (stdio or http).';
  }
  const lines = ["MCP servers:"];
  for (const server of summaries) {
    lines.push(`  ${server.name} (${server.transport}): ${server.tools.length} tools`);
    for (const tool of server.tools) lines.push(`    ${tool}`);
    for (const tool of server.skipped) lines.push(`    ${tool.name} (not offered: ${tool.reason})`);
  }
  return lines.join("\n");
}
