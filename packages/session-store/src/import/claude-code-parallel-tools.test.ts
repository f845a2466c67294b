import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MessageEntry } from "../format/entries.js";
import { readClaudeCodeFile } from "./claude-code-reader.js";
import {
  defined,
  openImported,
  toolResultPairing,
  unansweredToolCalls,
} from "./import-test-util.js";

/*
 * How Claude Code writes parallel tool calls: each call is a line of the same API message,
 * progress lines sit between them, each result names its own call's line as parent, and the
 * message may go on (more calls) after the first results came back.
 */

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "arbor-cc-parallel-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const base = { sessionId: "s-par", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w" };
const user = (uuid: string, parentUuid: string | null, content: unknown) =>
  JSON.stringify({ ...base, type: "user", uuid, parentUuid, message: { role: "user", content } });
const call = (uuid: string, parentUuid: string, id: string) =>
  JSON.stringify({
    ...base,
    type: "assistant",
    uuid,
    parentUuid,
    message: {
      id: "msg_1",
      role: "assistant",
      model: "m",
      content: [{ type: "tool_use", id, name: "Read", input: {} }],
      usage: { input_tokens: 7, output_tokens: 3 },
    },
  });
const progress = (uuid: string, parentUuid: string) =>
  JSON.stringify({ ...base, type: "progress", uuid, parentUuid, data: { type: "hook_progress" } });
const result = (uuid: string, parentUuid: string, id: string) =>
  user(uuid, parentUuid, [{ type: "tool_result", tool_use_id: id, content: `result of ${id}` }]);

describe("Claude Code parallel tool calls", () => {
  it("become one assistant message with every call, its results after it in file order", async () => {
    const path = join(dir, "parallel.jsonl");
    await writeFile(
      path,
      [
        user("u1", null, "read three files"),
        call("c1", "u1", "t1"),
        progress("p1", "c1"),
        call("c2", "p1", "t2"),
        result("r1", "c1", "t1"),
        progress("p2", "r1"),
        call("c3", "r1", "t3"), // the message goes on after the first result
        result("r2", "c2", "t2"),
        result("r3", "c3", "t3"),
        JSON.stringify({
          ...base,
          type: "assistant",
          uuid: "a2",
          parentUuid: "r3",
          message: {
            id: "msg_2",
            role: "assistant",
            model: "m",
            content: [{ type: "text", text: "done" }],
          },
        }),
      ].join("\n"),
    );
    const log = defined((await readClaudeCodeFile(path))[0]);
    const assistants = log.entries.filter(
      (e): e is MessageEntry =>
        e.type === "message" && (e as MessageEntry).message.role === "assistant",
    );
    expect(assistants.map((e) => e.id)).toEqual(["c1", "a2"]);
    const calls = defined(assistants[0]).message.content as { id?: string }[];
    expect(calls.map((b) => b.id)).toEqual(["t1", "t2", "t3"]);
    expect(assistants[0]?.message.usage).toMatchObject({ input: 7, output: 3 });
    const session = await openImported(log);
    expect(session.getTree()).toHaveLength(1);
    expect(session.getEntries().filter((e) => session.getChildren(e.id).length > 1)).toEqual([]);
    const messages = session.buildSessionContext().messages as Record<string, unknown>[];
    expect(messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "toolResult",
      "toolResult",
      "assistant",
    ]);
    expect(messages.filter((m) => m.role === "toolResult").map((m) => m.toolCallId)).toEqual([
      "t1",
      "t2",
      "t3",
    ]);
    expect(toolResultPairing(messages)).toEqual([1, 1, 1]);
    expect(unansweredToolCalls(messages)).toEqual([]);
  });

  it("still keeps a rewind after the results as a branch", async () => {
    const path = join(dir, "rewind.jsonl");
    await writeFile(
      path,
      [
        user("u1", null, "go"),
        call("c1", "u1", "t1"),
        result("r1", "c1", "t1"),
        user("u2", "r1", "first follow-up"),
        user("u2b", "r1", "edited follow-up"),
      ].join("\n"),
    );
    const session = await openImported(defined((await readClaudeCodeFile(path))[0]));
    expect(session.getChildren("r1").map((e) => e.id)).toEqual(["u2", "u2b"]);
  });
});
