import { describe, expect, it } from "vitest";
import type { AgentMessage, MessageEntry } from "../format/entries.js";
import { readClaudeCodeFile } from "./claude-code-reader.js";
import { defined, importFixture, openImported, toolResultPairing } from "./import-test-util.js";

const file = importFixture("generated", "claude-code-every-line.jsonl");

describe("readClaudeCodeFile on a file with every line type", () => {
  it("records the source tool, session id, path and version in the header", async () => {
    const [main] = await readClaudeCodeFile(file);
    expect(main?.header).toMatchObject({
      id: "claude-code-6a3c1f0e-0000-4000-8000-000000000001",
      cwd: "/home/demo",
      timestamp: "2025-10-01T10:00:01.000Z",
      importedFrom: {
        tool: "claude-code",
        sessionId: "6a3c1f0e-0000-4000-8000-000000000001",
        path: file,
        version: "2.0.14",
      },
    });
  });

  it("dates the lines without a time (titles, snapshots) at the session's start", async () => {
    const logs = await readClaudeCodeFile(file);
    const times = logs.flatMap((log) => log.entries.map((e) => e.timestamp));
    expect(times.filter((t) => t < "2025-10-01T10:00:01.000Z")).toEqual([]);
    expect(logs[1]?.header.timestamp).toBe(logs[1]?.entries[0]?.timestamp);
  });

  it("merges lines that share message.id into one entry and counts their usage once", async () => {
    const [main] = await readClaudeCodeFile(file);
    const entry = main?.entries.find((e) => e.id === "a-1") as MessageEntry;
    expect((entry.message.content as { type: string }[]).map((b) => b.type)).toEqual([
      "thinking",
      "text",
      "toolCall",
      "toolCall",
    ]);
    expect(entry.message.usage).toEqual({
      input: 1200,
      output: 85,
      cacheRead: 5000,
      cacheWrite: 300,
      totalTokens: 6585,
    });
    expect(entry.message.stopReason).toBe("toolUse");
    expect(main?.entries.some((e) => e.id === "a-2" || e.id === "a-3")).toBe(false);
    expect(entry.importedFrom).toEqual({
      line: 4,
      id: "a-1",
      merged: [
        { line: 5, id: "a-2" },
        { line: 6, id: "a-3" },
      ],
    });
  });

  it("keeps thinking as thinking, with its signature", async () => {
    const [main] = await readClaudeCodeFile(file);
    const entry = main?.entries.find((e) => e.id === "a-1") as MessageEntry;
    expect((entry.message.content as object[])[0]).toEqual({
      type: "thinking",
      thinking: "The user asks about build speed. Check tsconfig.",
      thinkingSignature: "sig-abc",
    });
  });

  it("puts each tool result after the assistant message that called it, ids kept", async () => {
    const [main] = await readClaudeCodeFile(file);
    const session = await openImported(defined(main));
    const context = session.buildSessionContext("a-4");
    const messages = context.messages as Record<string, unknown>[];
    expect(messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "toolResult",
      "assistant",
    ]);
    expect(toolResultPairing(messages)).toEqual([1, 1]);
    expect(messages[2]).toMatchObject({ toolCallId: "toolu_01", toolName: "Read", isError: false });
    expect(messages[3]).toMatchObject({
      toolCallId: "toolu_02",
      toolName: "Bash",
      isError: true,
      content: [{ type: "text", text: "error TS2307: Cannot find module" }],
    });
  });

  it("keeps a rewind as sibling branches, and lines without a uuid never start a branch", async () => {
    const [main] = await readClaudeCodeFile(file);
    const session = await openImported(defined(main));
    expect(
      session
        .getChildren("a-4")
        .map((e) => e.id)
        .sort(),
    ).toEqual(["u-3a", "u-3b"]);
    const branching = session
      .getEntries()
      .filter((e) => session.getChildren(e.id).length > 1)
      .map((e) => e.id);
    expect(branching).toEqual(["a-4"]);
    expect(session.getTree()).toHaveLength(1);
  });

  it("writes a model change before the message of the new model, on that path only", async () => {
    const [main] = await readClaudeCodeFile(file);
    const session = await openImported(defined(main));
    const change = session.getEntry("a-5-model");
    expect(change).toMatchObject({
      type: "model_change",
      provider: "anthropic",
      modelId: "claude-opus-4-1-20250805",
      parentId: "u-3b",
    });
    expect(session.getEntry("a-5")?.parentId).toBe("a-5-model");
    expect(session.buildSessionContext("u-3a").model?.modelId).toBe("claude-sonnet-4-5-20250929");
  });

  it("turns compact_boundary and the summary after it into one compaction on the logical parent", async () => {
    const [main] = await readClaudeCodeFile(file);
    const session = await openImported(defined(main));
    const compaction = session.getEntry("cb-1");
    expect(compaction).toMatchObject({
      type: "compaction",
      parentId: "s-1",
      tokensBefore: 48213,
      summary: expect.stringContaining("incremental builds were off"),
    });
    expect(session.getEntry("u-cs")).toBeUndefined();
    expect(session.getEntry("u-4")?.parentId).toBe("cb-1");
    const context = session.buildSessionContext("a-6");
    expect(context.messages.map((m: AgentMessage) => m.role)).toEqual([
      "compactionSummary",
      "user",
      "assistant",
    ]);
  });

  it("makes each sidechain a child session linked to the main one", async () => {
    const logs = await readClaudeCodeFile(file);
    expect(logs).toHaveLength(2);
    const child = defined(logs[1]);
    expect(child.header.parentSession).toBe(logs[0]?.header.id);
    expect(child.entries.map((e) => e.id)).toEqual(["sc-1", "sc-2"]);
    expect(logs[0]?.entries.some((e) => e.id.startsWith("sc-"))).toBe(false);
  });

  it("keeps a line of an unknown type whole as a raw custom entry and counts it", async () => {
    const [main] = await readClaudeCodeFile(file);
    expect(main?.report).toMatchObject({ lines: 19, raw: 1, merged: 3 });
    expect(main?.report.issues).toEqual([
      { line: 20, reason: 'unknown line type "brand-new-line-type"' },
    ]);
    const raw = main?.entries.find(
      (e) => e.type === "custom" && (e as { customType?: string }).customType === "import.raw_line",
    );
    expect((raw as { data: { text: string } }).data.text).toContain('"what":"a future version"');
  });

  it("keeps the titles as session names and the bookkeeping lines as custom entries", async () => {
    const [main] = await readClaudeCodeFile(file);
    const session = await openImported(defined(main));
    expect(session.getSessionName()).toBe("Build speed");
    const types = main?.entries
      .filter((e) => e.type === "custom")
      .map((e) => (e as { customType?: string }).customType);
    expect(types).toEqual([
      "claude-code.file-history-snapshot",
      "claude-code.file-history-snapshot",
      "claude-code.system",
      "import.raw_line",
    ]);
  });

  it("converts images and keeps the error message of an API failure", async () => {
    const [main] = await readClaudeCodeFile(file);
    const user = main?.entries.find((e) => e.id === "u-3b") as MessageEntry;
    expect(user.message.content).toEqual([
      { type: "text", text: "Look at this screenshot instead." },
      { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
    ]);
    const failed = main?.entries.find((e) => e.id === "a-6") as MessageEntry;
    expect(failed.message).toMatchObject({
      role: "assistant",
      stopReason: "error",
      errorMessage: "API Error: 529 Overloaded",
    });
  });
});
