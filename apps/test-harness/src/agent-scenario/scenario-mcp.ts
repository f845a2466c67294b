import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { connectMcpServers, type McpConnections, type McpServerConfig } from "@arbor/turn-runner";
import type { ScenarioMcpServer, ScenarioTool } from "./agent-scenario-schema.js";

const SERVER_SCRIPT = join("fixtures", "scripted-mcp-server.mjs");

/** The harness's scripted MCP server, found from this module in `src/` and in `dist/` alike. */
export function scriptedMcpServerPath(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, SERVER_SCRIPT))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`${SERVER_SCRIPT} is missing from the harness package`);
    dir = parent;
  }
  return join(dir, SERVER_SCRIPT);
}

/** The JSON schema of a scenario tool's parameters, as an MCP server lists it. */
export function inputSchemaOf(parameters: ScenarioTool["parameters"]): Record<string, unknown> {
  const properties: Record<string, { type: string }> = {};
  const required: string[] = [];
  for (const [name, type] of Object.entries(parameters)) {
    properties[name] = { type: type.replace("?", "") };
    if (!type.endsWith("?")) required.push(name);
  }
  return { type: "object", properties, required };
}

/**
 * Starts one scripted MCP server per declared server (each a child process speaking MCP on
 * stdio) and connects them through the real MCP client of `@arbor/turn-runner`.
 */
export function connectScenarioMcpServers(
  servers: readonly ScenarioMcpServer[],
): Promise<McpConnections> {
  const script = scriptedMcpServerPath();
  const configs = servers.map(
    (server): McpServerConfig => ({
      name: server.name,
      ...(server.timeoutMs === undefined ? {} : { timeoutMs: server.timeoutMs }),
      transport: {
        type: "stdio",
        command: process.execPath,
        args: [
          script,
          JSON.stringify({
            tools: server.tools.map((tool) => ({
              name: tool.name,
              description: tool.description,
              inputSchema: inputSchemaOf(tool.parameters),
              behaviour: tool.behaviour,
            })),
          }),
        ],
      },
    }),
  );
  return connectMcpServers(configs);
}
