import { toolDefinitionSchema } from "@arbor/providers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stdioFixture } from "../../test/mcp-fixtures.js";
import { runToolCall, toolDefinitions } from "../agent-tool.js";
import { connectMcpServer, type McpConnection } from "./connect-mcp-server.js";
import { MAX_DESCRIPTION_CHARS } from "./mcp-agent-tools.js";
import { McpServerStartError } from "./mcp-errors.js";
import { MODEL_TOOL_NAME_PATTERN, modelToolNames } from "./tool-names.js";

describe("a server listing hostile names and schemas", () => {
  let hostile: McpConnection;
  beforeAll(async () => {
    hostile = await connectMcpServer(stdioFixture("hostile-server.mjs", { name: "evil server" }));
  });
  afterAll(() => hostile.close());

  it("offers only tools whose names and schemas every provider accepts", () => {
    const names = hostile.tools.map((tool) => tool.name);
    expect(names).toEqual([
      "evil_server_search_files",
      expect.stringMatching(/^evil_server_search_files_[0-9a-f]{8}$/),
      "evil_server__n_c_d__tool",
      expect.stringMatching(/^evil_server_a{43}_[0-9a-f]{8}$/),
      "evil_server_draft_2020",
    ]);
    for (const name of names) expect(name).toMatch(MODEL_TOOL_NAME_PATTERN);
    expect(new Set(names).size).toBe(names.length);
    for (const definition of toolDefinitions(hostile.tools)) {
      expect(toolDefinitionSchema.safeParse(definition).success).toBe(true);
    }
  });

  it("skips tools with a remote $ref, an invalid or an oversized schema, and says why", () => {
    expect(hostile.skippedTools).toEqual([
      { name: "remote_ref", reason: expect.stringContaining("can't resolve reference") },
      { name: "bad_type", reason: expect.stringContaining("input schema is unusable") },
      { name: "huge_schema", reason: expect.stringMatching(/input schema is \d+ characters/) },
    ]);
  });

  it("cuts long descriptions", () => {
    const draft = hostile.tools.find((tool) => tool.name === "evil_server_draft_2020");
    expect(draft?.description).toHaveLength(MAX_DESCRIPTION_CHARS);
  });

  it("calls a renamed tool by its name on the server", async () => {
    const [searchFiles] = hostile.tools;
    if (!searchFiles) throw new Error("no tool");
    const outcome = await runToolCall(
      searchFiles,
      { id: "c1", name: searchFiles.name, arguments: { query: "*.ts" } },
      { signal: new AbortController().signal, timeoutMs: 10_000 },
    );
    expect(outcome).toEqual({
      content: [{ type: "text", text: 'called search.files with {"query":"*.ts"}' }],
      isError: false,
    });
  });

  it("validates draft 2020-12 schemas by their own rules", async () => {
    const draft = hostile.tools.find((tool) => tool.name === "evil_server_draft_2020");
    if (!draft) throw new Error("no tool");
    const run = (pair: unknown) =>
      runToolCall(
        draft,
        { id: "c1", name: draft.name, arguments: { pair } },
        { signal: new AbortController().signal, timeoutMs: 10_000 },
      );
    expect((await run(["a", 1])).isError).toBe(false);
    const wrong = await run([1, "a"]);
    expect(wrong.isError).toBe(true);
    expect(wrong.content[0]).toMatchObject({ text: expect.stringContaining("must be string") });
  });
});

describe("a server whose listing breaks the MCP schema", () => {
  it("fails to start with what was wrong", async () => {
    const config = stdioFixture("hostile-server.mjs", { name: "strict" });
    if (config.transport.type === "stdio") config.transport.args?.push("--non-object-schema");
    const error = await connectMcpServer(config).catch((caught: unknown) => caught);
    expect(McpServerStartError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /^MCP server "strict" \(command ".*"\) failed to start: /,
    );
    expect((error as Error).message).toContain(
      'failed to start: its answer breaks the MCP schema (tools.8.inputSchema.type: Invalid input: expected "object")',
    );
  });
});

describe("modelToolNames", () => {
  it("keeps valid names, replaces other characters and is stable across calls", () => {
    const names = ["read_file", "read file", "read-file", "😀", ""];
    const first = modelToolNames(names, "");
    expect(first[0]).toBe("read_file");
    expect(first[1]).toMatch(/^read_file_[0-9a-f]{8}$/);
    expect(first[2]).toBe("read-file");
    expect(first[3]).toBe("_");
    expect(first[4]).toBe("tool");
    expect(modelToolNames(names, "")).toEqual(first);
  });

  it("avoids names already taken", () => {
    const taken = new Set(["x_a"]);
    const [name] = modelToolNames(["a"], "x_", taken);
    expect(name).toMatch(/^x_a_[0-9a-f]{8}$/);
    expect(taken.has(name ?? "")).toBe(true);
  });
});
