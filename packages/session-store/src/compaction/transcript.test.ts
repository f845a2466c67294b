import { describe, expect, it } from "vitest";
import { Session } from "../session.js";
import { MemorySessionStorage } from "../storage/memory-storage.js";
import { assistant, pathOf, toolResult, user } from "./entry-factory.test-util.js";
import { collectFileOperations } from "./file-operations.js";
import {
  estimateContextTokens,
  estimateMessageTokens,
  estimateSessionTokens,
} from "./token-estimate.js";
import { serializeTranscript } from "./transcript.js";

describe("serializeTranscript", () => {
  it("labels every part and cuts long tool results", () => {
    const text = serializeTranscript(
      [
        user("Fix the bug"),
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "look first" },
            { type: "text", text: "Reading." },
            { type: "toolCall", id: "c1", name: "read", arguments: { path: "a.ts" } },
          ],
        },
        toolResult("c1", "read", "y".repeat(50)),
        { role: "compactionSummary", summary: "before", tokensBefore: 1, timestamp: 1 },
      ],
      { toolResultMaxChars: 10 },
    );
    expect(text).toMatchInlineSnapshot(`
      "[User]: Fix the bug

      [Assistant reasoning]: look first

      [Assistant]: Reading.

      [Assistant tool call]: read({"path":"a.ts"})

      [Tool result read]: yyyyyyyyyy
      [… 40 more characters left out]

      [Summary of earlier conversation]: before"
    `);
  });
});

describe("collectFileOperations", () => {
  it("lists reads and modifications, a modified file only once, carried lists included", () => {
    const ops = collectFileOperations(
      [
        assistant("", [
          ["1", "read", { path: "b.ts" }],
          ["2", "read_file", { file_path: "a.ts" }],
          ["3", "write", { path: "a.ts" }],
          ["4", "bash", { path: "ignored.sh" }],
          ["5", "read", { nothing: true }],
        ]),
      ],
      { carried: [{ readFiles: ["z.ts"], modifiedFiles: ["m.ts"] }, "junk", null] },
    );
    expect(ops).toEqual({ readFiles: ["b.ts", "z.ts"], modifiedFiles: ["a.ts", "m.ts"] });
  });
});

describe("token estimates", () => {
  it("counts text at four characters a token and images at a flat rate", () => {
    expect(estimateMessageTokens(user("abcdefgh"))).toBe(2);
    expect(
      estimateMessageTokens({
        role: "user",
        content: [{ type: "image", data: "AAAA", mimeType: "image/png" }],
      }),
    ).toBe(1200);
  });

  it("trusts the usage of the latest answer after the latest compaction", () => {
    const path = pathOf([
      user("x".repeat(400)),
      assistant("y", [], { usage: { input: 5000, output: 10, cacheRead: 0, cacheWrite: 0 } }),
      user("abcdefgh"),
    ]);
    expect(estimateContextTokens(path)).toBe(5010 + 2);
    const aborted = pathOf([
      user("x".repeat(400)),
      assistant("y", [], { stopReason: "aborted", usage: { input: 5000, output: 1 } }),
    ]);
    expect(estimateContextTokens(aborted)).toBe(100 + 1);
  });

  it("counts with a tokenizer when one is given: what came after the reported usage", async () => {
    const words = (text: string) => text.split(/\s+/).filter(Boolean).length;
    expect(estimateMessageTokens(user("one two three"), words)).toBe(3);
    const session = await Session.open(new MemorySessionStorage(), { create: true });
    await session.appendMessage(user("a b c d e f g h"));
    expect(estimateSessionTokens(session, words)).toBe(8);
    await session.appendMessage(
      assistant("y", [], { usage: { input: 5000, output: 10, cacheRead: 0, cacheWrite: 0 } }),
    );
    await session.appendMessage(user("four words come after"));
    expect(estimateSessionTokens(session, words)).toBe(5010 + 4);
  });

  it("gives the same estimate from a session as from its path, reading only the tail", async () => {
    const session = await Session.open(new MemorySessionStorage(), { create: true });
    await session.appendMessage(user("x".repeat(400)));
    expect(estimateSessionTokens(session)).toBe(estimateContextTokens(session.getBranch()));
    const answer = await session.appendMessage(
      assistant("y", [], { usage: { input: 5000, output: 10, cacheRead: 0, cacheWrite: 0 } }),
    );
    await session.appendMessage(user("abcdefgh"));
    expect(estimateSessionTokens(session)).toBe(5012);
    expect(estimateContextTokens(session.getBranch())).toBe(5012);
    // After a compaction the usage before it no longer counts.
    await session.appendCompaction("short summary", answer, 5012);
    await session.appendMessage(user("abcd"));
    const expected = estimateContextTokens(session.getBranch());
    expect(expected).toBe(4 + 3 + 1);
    expect(estimateSessionTokens(session)).toBe(expected);
  });
});
