import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { drain, memorySession, messageOf, scripted, shape } from "../../test/factories.js";
import { stdioFixture } from "../../test/mcp-fixtures.js";
import { AgentSession } from "../agent-session.js";
import { connectMcpServer, type McpConnection } from "./connect-mcp-server.js";

describe("AgentSession with an MCP server over stdio", () => {
  let calc: McpConnection;
  beforeAll(async () => {
    calc = await connectMcpServer(stdioFixture("stdio-server.mjs", { name: "calc" }));
  });
  afterAll(() => calc.close());

  it("offers the MCP tools, runs the model's call and stores the result", async () => {
    const session = await memorySession();
    const model = scripted("alpha", [
      { blocks: [{ type: "toolCall", id: "c1", name: "calc_add", arguments: { a: 2, b: 40 } }] },
      { blocks: [{ type: "toolCall", id: "c2", name: "calc_fail", arguments: {} }] },
      "42, but the disk is full",
    ]);
    const agent = new AgentSession({ targets: [{ model }], session, tools: calc.tools });

    const { result } = await drain(agent.prompt("What is 2 + 40?"));

    expect(result).toMatchObject({ success: true, turns: 3 });
    expect(model.requests[0]?.tools?.find((tool) => tool.name === "calc_add")).toEqual({
      name: "calc_add",
      description: "Adds two numbers",
      parameters: expect.objectContaining({
        type: "object",
        properties: { a: { type: "number" }, b: { type: "number" } },
      }),
    });
    expect(shape(session).map(([, kind]) => kind)).toEqual([
      "message:user",
      "message:assistant",
      "message:toolResult",
      "message:assistant",
      "message:toolResult",
      "message:assistant",
    ]);
    expect(messageOf(session, "e3")).toMatchObject({
      role: "toolResult",
      toolCallId: "c1",
      toolName: "calc_add",
      content: [{ type: "text", text: "42" }],
      isError: false,
    });
    expect(messageOf(session, "e5")).toMatchObject({
      toolCallId: "c2",
      content: [{ type: "text", text: "Tool calc_fail failed: the disk is full" }],
      isError: true,
    });
  });
});
