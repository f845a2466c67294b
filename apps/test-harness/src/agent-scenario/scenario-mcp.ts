import { connectMcpServers, type McpConnections, type McpServerConfig } from "@arbor/turn-runner";
import type { ScenarioMcpServer, ScenarioTool } from "./agent-scenario-schema.js";
import { harnessFixturePath } from "./harness-fixture.js";

/** The harness's scripted MCP server (`fixtures/scripted-mcp-server.mjs`). */
export function scriptedMcpServerPath(): string {
  return harnessFixturePath("scripted-mcp-server.mjs");
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
