import { describe, expect, it } from "vitest";
import type { AgentMessage } from "../format/entries.js";
import { SessionImportError } from "./import-errors.js";
import { defined, importFixture, openImported, toolResultPairing } from "./import-test-util.js";
import { readOpencodeStorage } from "./opencode-reader.js";

const storage = importFixture("generated", "opencode-storage");

describe("readOpencodeStorage on a storage folder", () => {
  it("reads every session, a child session linked to its parent", async () => {
    const logs = await readOpencodeStorage(storage);
    expect(logs.map((l) => l.header.id)).toEqual([
      "opencode-ses_5f0a1b2c3ffeABCDEF123456",
      "opencode-ses_5f0a1b2c4ffeABCDEF654321",
    ]);
    expect(logs[0]?.header).toMatchObject({
      cwd: "/home/demo",
      title: "Fix the flaky test",
      importedFrom: {
        tool: "opencode",
        sessionId: "ses_5f0a1b2c3ffeABCDEF123456",
        version: "0.15.3",
      },
    });
    expect(logs[1]?.header.parentSession).toBe(logs[0]?.header.id);
  });

  it("splits an assistant message at its steps, each step's tool results after its calls", async () => {
    const [log] = await readOpencodeStorage(storage);
    const session = await openImported(defined(log));
    const messages = session.buildSessionContext("msg_a002-step3").messages as Record<
      string,
      unknown
    >[];
    expect(messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "assistant",
      "toolResult",
      "assistant",
    ]);
    expect(toolResultPairing(messages)).toEqual([1, 3]);
    expect(messages[1]?.content).toEqual([
      { type: "thinking", thinking: "Look at the test file first." },
      { type: "text", text: "Reading the test." },
      { type: "toolCall", id: "toolu_oc1", name: "read", arguments: { filePath: "src/a.test.ts" } },
    ]);
    expect(messages[1]?.usage).toEqual({
      input: 100,
      output: 20,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 120,
    });
    expect(messages[3]?.usage).toBeUndefined();
    expect(messages[4]).toMatchObject({
      toolName: "bash",
      isError: true,
      content: [{ type: "text", text: "exit code 1" }],
    });
    expect(messages[0]?.content).toContainEqual({
      type: "image",
      mimeType: "image/png",
      data: "iVBORw0KGgo=",
    });
  });

  it("turns a summary message into a compaction and a new model into a model change", async () => {
    const [log] = await readOpencodeStorage(storage);
    const session = await openImported(defined(log));
    const context = session.buildSessionContext();
    expect(context.messages.map((m: AgentMessage) => m.role)).toEqual([
      "compactionSummary",
      "user",
      "assistant",
    ]);
    expect(context.model).toEqual({ provider: "openai", modelId: "gpt-5" });
  });

  it("keeps a broken part file as a raw entry naming the file", async () => {
    const [log] = await readOpencodeStorage(storage);
    expect(log?.report.raw).toBe(1);
    expect(log?.report.issues[0]).toMatchObject({ file: "part/msg_a006/prt_a006c.json" });
    expect(log?.report.issues[0]?.reason).toMatch(/^not JSON/);
  });

  it("refuses a folder that is not opencode's storage with a typed error", async () => {
    const error = await readOpencodeStorage(importFixture("generated")).catch((e: unknown) => e);
    expect(SessionImportError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "import_not_recognized" });
  });
});
