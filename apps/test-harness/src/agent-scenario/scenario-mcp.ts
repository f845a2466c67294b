import { connectMcpServers, type McpConnections, type McpServerConfig } from "@arbor/orchestration";
import type { ScenarioMcpServer, ScenarioTool } from "./agent-scenario-schema.js";
import { harnessFixturePath } from "./harness-fixture.js";
import {
  type ScriptedMcpConfig,
  type ScriptedMcpHttpServer,
  startScriptedMcpHttpServer,
} from "./scripted-mcp-http.js";

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

/** The scripted server's configuration for one scenario MCP server. */
function scriptedConfig(server: ScenarioMcpServer): ScriptedMcpConfig {
  return {
    tools: server.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: inputSchemaOf(tool.parameters),
      behaviour: tool.behaviour,
    })),
  };
}

/**
 * Starts one scripted MCP server per declared server (a child process speaking MCP on
 * stdio, or the SDK's streamable HTTP server in this process) and connects them through the
 * real MCP client of `@arbor/turn-runner`. Closing the connections stops the HTTP servers.
 */
export async function connectScenarioMcpServers(
  servers: readonly ScenarioMcpServer[],
): Promise<McpConnections> {
  const script = scriptedMcpServerPath();
  const httpServers: ScriptedMcpHttpServer[] = [];
  const stopHttpServers = () => Promise.all(httpServers.map((http) => http.close()));
  try {
    const configs: McpServerConfig[] = [];
    for (const server of servers) {
      const scripted = scriptedConfig(server);
      let transport: McpServerConfig["transport"];
      if (server.transport === "http") {
        const http = await startScriptedMcpHttpServer(scripted);
        httpServers.push(http);
        transport = { type: "http", url: http.url, headers: http.headers };
      } else {
        transport = {
          type: "stdio",
          command: process.execPath,
          args: [script, JSON.stringify(scripted)],
        };
      }
      configs.push({
        name: server.name,
        ...(server.timeoutMs === undefined ? {} : { timeoutMs: server.timeoutMs }),
        transport,
      });
    }
    const connections = await connectMcpServers(configs);
    return {
      ...connections,
      async close() {
        await connections.close();
        await stopHttpServers();
      },
    };
  } catch (error) {
    await stopHttpServers();
    throw error;
  }
}
