import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

/** An MCP SDK client connected to a server's `/mcp` with a key. */
export async function mcpClient(
  origin: string,
  key: string,
  capabilities: Record<string, unknown> = {},
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  const client = new Client({ name: "arbor-test", version: "1.0.0" }, { capabilities });
  await client.connect(transport);
  return { client, transport };
}
