import { type AgentTool, connectMcpServers } from "@arbor/turn-runner";
import { afterEach, describe, expect, it } from "vitest";
import { type ScriptedMcpHttpServer, startScriptedMcpHttpServer } from "./scripted-mcp-http.js";

const config = {
  tools: [
    {
      name: "count",
      inputSchema: { type: "object", properties: {} },
      behaviour: [{ returns: "first" }, { returns: "later" }],
    },
  ],
};

function call(tool: AgentTool | undefined) {
  if (!tool) throw new Error("no tool listed");
  return tool.execute({}, { signal: new AbortController().signal, toolCallId: "call-1" });
}

describe("startScriptedMcpHttpServer", () => {
  let server: ScriptedMcpHttpServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("turns away requests without its bearer token", async () => {
    server = await startScriptedMcpHttpServer(config);
    const res = await fetch(server.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(res.status).toBe(401);
    expect(await res.text()).toBe("missing or wrong bearer token");
    expect(server.refused).toBe(1);
  });

  it("serves the scripted tools to the real MCP client, one call count across its sessions", async () => {
    server = await startScriptedMcpHttpServer(config);
    const transport = { type: "http" as const, url: server.url, headers: server.headers };
    const a = await connectMcpServers([{ name: "a", transport }]);
    const b = await connectMcpServers([{ name: "b", transport }]);
    try {
      expect(a.tools.map((t) => t.name)).toEqual(["a_count"]);
      const first = await call(a.tools[0]);
      const second = await call(b.tools[0]);
      expect(first).toBe("first");
      expect(second).toBe("later");
      expect(server.refused).toBe(0);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
