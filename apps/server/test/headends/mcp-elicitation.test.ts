import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type ExtensionServer, startExtensionServer } from "../helpers/extension-server.js";
import { mcpClient } from "./mcp-client.js";

// Real servers and SDK clients: generous limits, so a loaded machine does not fail them.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 90_000 });

let s: ExtensionServer;
beforeAll(async () => {
  s = await startExtensionServer();
});
afterAll(() => s.close());

describe("MCP elicitation", () => {
  it("an extension's question becomes an elicitation, and its answer reaches the run", async () => {
    const { client } = await mcpClient(s.server.url, s.key, { elicitation: {} });
    const asked: Array<{ message: string; requestedSchema: unknown }> = [];
    let answer: { action: "accept" | "decline"; content?: Record<string, string> } = {
      action: "accept",
      content: { value: "Allow once" },
    };
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params as never);
      return answer;
    });
    const allowed = await client.callTool({ name: "gated", arguments: { prompt: "run sudo ls" } });
    expect(asked).toHaveLength(1);
    expect(asked[0]?.message).toContain("Allow this command?");
    expect(asked[0]?.requestedSchema).toMatchObject({
      properties: { value: { enum: ["Allow once", "Allow for this session", "Deny"] } },
    });
    const text = (allowed.structuredContent as { text: string }).text;
    expect(text).toMatch(/^tool said: /);
    expect(text).not.toContain("Not run");

    answer = { action: "decline" };
    const declined = await client.callTool({
      name: "gated",
      arguments: { prompt: "run sudo rm x" },
    });
    expect(asked).toHaveLength(2);
    expect((declined.structuredContent as { text: string }).text).toContain("Not run");
    await client.close();
  });
});
