import { describe, expect, it } from "vitest";
import type { AgentMessage, MessageEntry } from "../format/entries.js";
import { readCodexFile } from "./codex-reader.js";
import { importFixture, openImported, toolResultPairing } from "./import-test-util.js";

const file = importFixture("generated", "codex-every-line.jsonl");

describe("readCodexFile on a rollout with every line type", () => {
  it("takes the header from session_meta, with the fork's source as parent session", async () => {
    const log = await readCodexFile(file);
    expect(log.header).toMatchObject({
      id: "codex-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
      timestamp: "2025-10-02T09:00:00.000Z",
      cwd: "/home/demo",
      parentSession: "codex-0199a1b2-0000-7000-8000-000000000000",
      importedFrom: {
        tool: "codex",
        sessionId: "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
        path: file,
        version: "0.46.0",
      },
    });
  });

  it("takes content from response_item only: the event_msg copies are counted, not added", async () => {
    const log = await readCodexFile(file);
    const texts = log.entries
      .filter((e): e is MessageEntry => e.type === "message")
      .flatMap((e) => (Array.isArray(e.message.content) ? e.message.content : []))
      .filter((b) => b.type === "text")
      .map((b) => b.text);
    expect(texts.filter((t) => t === "List the files and fix the test.")).toHaveLength(2); // once, and once in the replacement history
    expect(texts.filter((t) => t === "Fixed the assertion in src/a.test.ts.")).toHaveLength(1);
    expect(log.report.duplicates).toBe(3);
  });

  it("makes one assistant message of reasoning and a call, and pairs every output with its call", async () => {
    const log = await readCodexFile(file);
    const session = await openImported(log);
    const leaf = log.entries.find((e) => e.id === "line-15");
    const messages = session.buildSessionContext(leaf?.id).messages as Record<string, unknown>[];
    expect(messages.map((m) => m.role)).toEqual([
      "user",
      "custom",
      "user",
      "assistant",
      "toolResult",
      "assistant",
      "toolResult",
      "assistant",
    ]);
    expect(toolResultPairing(messages)).toEqual([3, 5]);
    const first = messages[3] as AgentMessage;
    expect(first.content).toEqual([
      {
        type: "thinking",
        thinking: "**Listing files**\n\nI will run ls.",
        thinkingSignature: "gAAAAB-encrypted",
      },
      {
        type: "toolCall",
        id: "call_ls",
        name: "shell",
        arguments: { command: ["bash", "-lc", "ls"], workdir: "/home/demo" },
      },
    ]);
    expect(first).toMatchObject({
      provider: "openai",
      model: "gpt-5-codex",
      usage: { input: 2000, cacheRead: 3000, output: 200 },
    });
    expect(messages[6]).toMatchObject({ toolCallId: "call_patch", toolName: "apply_patch" });
  });

  it("turns turn_context changes into model and thinking level changes", async () => {
    const log = await readCodexFile(file);
    const changes = log.entries
      .filter((e) => e.type === "model_change" || e.type === "thinking_level_change")
      .map(
        (e) =>
          (e as { modelId?: string; thinkingLevel?: string }).modelId ??
          (e as { thinkingLevel?: string }).thinkingLevel,
      );
    expect(changes).toEqual(["gpt-5-codex", "medium", "gpt-5", "high"]);
    const session = await openImported(log);
    const context = session.buildSessionContext();
    expect(context.model).toEqual({ provider: "openai", modelId: "gpt-5" });
    expect(context.thinkingLevel).toBe("high");
  });

  it("turns compacted into a compaction followed by its replacement history", async () => {
    const log = await readCodexFile(file);
    const session = await openImported(log);
    const messages = session.buildSessionContext().messages as Record<string, unknown>[];
    expect(messages.slice(0, 3).map((m) => m.role)).toEqual([
      "compactionSummary",
      "user",
      "assistant",
    ]);
    expect(messages[0]?.summary).toBe(
      "Summary: listed files, fixed the assertion in src/a.test.ts.",
    );
    expect(messages.slice(3).map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "assistant",
    ]);
    expect(messages[6]?.content).toEqual([
      expect.objectContaining({
        type: "codex_web_search_call",
        action: { type: "search", query: "vitest" },
      }),
    ]);
    expect(messages[3]?.content).toEqual([
      { type: "text", text: "Now run it." },
      { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" },
    ]);
    expect(messages[4]?.content).toContainEqual({
      type: "toolCall",
      id: "call_bad",
      name: "shell",
      arguments: { raw: "not json" },
    });
    expect(messages[5]).toMatchObject({
      isError: true,
      content: [{ type: "text", text: "command failed" }],
    });
  });

  it("keeps unknown line and item types whole as raw entries, counted with their reason", async () => {
    const log = await readCodexFile(file);
    expect(log.report.raw).toBe(2);
    expect(log.report.issues).toEqual([
      { line: 23, reason: 'unknown response_item type "ghost_snapshot"' },
      { line: 24, reason: 'unknown line type "world_state"' },
    ]);
    const raw = log.entries.filter(
      (e) => (e as { customType?: string }).customType === "import.raw_line",
    );
    expect((raw[1] as { data: { text: string } }).data.text).toContain('"world_state"');
  });

  it("keeps the events that are not copies, and a later session_meta, as custom entries", async () => {
    const log = await readCodexFile(file);
    const kept = log.entries
      .filter((e) => e.type === "custom")
      .map((e) => (e as { customType: string }).customType);
    expect(kept).toEqual([
      "codex.event_msg",
      "import.raw_line",
      "import.raw_line",
      "codex.session_meta",
    ]);
  });
});
