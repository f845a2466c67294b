import { arborErrorGuard } from "@arbor/session-store";
import type { AgentTool } from "../agent-tool.js";
import { connectMcpServer, type McpConnection } from "./connect-mcp-server.js";
import { McpConfigError, McpError, McpServerStartError } from "./mcp-errors.js";
import type { McpServerConfig } from "./mcp-server-config.js";

/** Several connected MCP servers and all their tools. */
export interface McpConnections {
  /** Every server's tools, under names distinct across the servers. */
  tools: AgentTool[];
  /** One connection per config, in config order. */
  servers: McpConnection[];
  /** Closes every server. */
  close(): Promise<void>;
}

/** Several MCP servers failed to start; `failures` holds one error per server. */
export class McpServersStartError extends McpError {
  readonly failures: McpServerStartError[];

  constructor(failures: McpServerStartError[]) {
    const names = failures.map((failure) => `"${failure.serverName}"`).join(", ");
    super(
      "mcp_servers_start",
      failures[0]?.serverName ?? "",
      `${failures.length} MCP servers failed to start (${names}):\n\n${failures
        .map((failure) => failure.message)
        .join("\n\n")}`,
    );
    this.name = "McpServersStartError";
    this.failures = failures;
  }

  /** True for a {@link McpServersStartError} from any copy of this package. */
  static override readonly isInstance = arborErrorGuard<McpServersStartError>(
    "@arbor/turn-runner:McpServersStartError",
  );
}

/**
 * Connects several MCP servers at once. Either every server starts or none stays running:
 * when one fails, the others are closed and its {@link McpServerStartError} is thrown
 * (a {@link McpServersStartError} when several failed). Tool names are kept distinct
 * across servers.
 *
 * @throws McpConfigError when two servers share a name or a config is invalid
 *
 * @example
 * ```ts
 * const mcp = await connectMcpServers([
 *   { name: "files", transport: { type: "stdio", command: "my-files-server" } },
 *   { name: "search", transport: { type: "http", url: "https://mcp.example.com/mcp" } },
 * ]);
 * const agent = new AgentSession({ targets, session, tools: [...localTools, ...mcp.tools] });
 * ```
 */
export async function connectMcpServers(
  configs: readonly McpServerConfig[],
): Promise<McpConnections> {
  const seen = new Set<string>();
  for (const config of configs) {
    if (seen.has(config.name)) {
      throw new McpConfigError(
        config.name,
        `Two MCP servers are named "${config.name}"; give each a distinct name.`,
      );
    }
    seen.add(config.name);
  }
  const settled = await Promise.allSettled(configs.map((config) => connectMcpServer(config)));
  const servers = settled.flatMap((outcome) =>
    outcome.status === "fulfilled" ? [outcome.value] : [],
  );
  const failures = settled.flatMap((outcome) =>
    outcome.status === "rejected" ? [outcome.reason as unknown] : [],
  );
  const close = async () => {
    await Promise.all(servers.map((server) => server.close()));
  };
  if (failures.length > 0) {
    await close();
    const startErrors = failures.filter(McpServerStartError.isInstance);
    if (startErrors.length === failures.length && startErrors.length > 1) {
      throw new McpServersStartError(startErrors);
    }
    throw failures[0];
  }
  // names are made distinct per server; a second pass makes them distinct across servers
  const taken = new Set<string>();
  const tools: AgentTool[] = [];
  for (const server of servers) {
    for (const tool of server.tools) {
      if (taken.has(tool.name)) {
        await close();
        throw new McpConfigError(
          server.name,
          `Tool name "${tool.name}" of MCP server "${server.name}" is also used by another server; give one of them a distinct toolPrefix.`,
        );
      }
      taken.add(tool.name);
      tools.push(tool);
    }
  }
  return { tools, servers, close };
}
