import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { SessionEntry } from "../format/entries.js";
import { buildContextFromPath } from "../tree/session-context.js";
import { assistant, pathOf, toolResult, user } from "./entry-factory.test-util.js";
import { planCompaction } from "./plan.js";

const words = (tokens: number) => "x".repeat(tokens * 4);

describe("planCompaction", () => {
  it("summarizes the old turns, keeps the recent ones and collects file operations", () => {
    const path = pathOf([
      user(words(100)),
      assistant("", [["c1", "read", { path: "src/a.ts" }]]),
      toolResult("c1", "read", words(100)),
      assistant("", [["c2", "edit", { file_path: "src/b.ts" }]]),
      toolResult("c2", "edit", "done"),
      user(words(100)),
      assistant(words(100)),
    ]);
    const plan = planCompaction(path, { keepRecentTokens: 150 });
    expect(plan).toMatchObject({
      firstKeptEntryId: "e5",
      splitTurn: false,
      turnPrefixMessages: [],
      fileOperations: { readFiles: ["src/a.ts"], modifiedFiles: ["src/b.ts"] },
    });
    expect(plan?.messagesToSummarize.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "assistant",
      "toolResult",
    ]);
    expect(plan?.previousSummary).toBeUndefined();
    expect(plan?.tokensBefore).toBeGreaterThan(300);
  });

  it("summarizes the prefix of a cut turn separately", () => {
    const path = pathOf([
      user(words(100)),
      assistant(words(100)),
      user(words(20)),
      assistant("", [["c1", "read", { path: "big.txt" }]]),
      toolResult("c1", "read", words(300)),
      assistant(words(50)),
    ]);
    const plan = planCompaction(path, { keepRecentTokens: 40 });
    expect(plan?.splitTurn).toBe(true);
    expect(plan?.firstKeptEntryId).toBe("e5");
    expect(plan?.messagesToSummarize.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(plan?.turnPrefixMessages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
    ]);
  });

  it("starts after an earlier compaction's kept entries and carries its summary and files", () => {
    const first = pathOf([
      user(words(100)),
      assistant(words(100)),
      user(words(100)),
      assistant(words(100)),
    ]);
    const compaction = {
      type: "compaction",
      id: "k1",
      parentId: "e3",
      timestamp: new Date(1_800_000_000_000).toISOString(),
      summary: "first summary",
      firstKeptEntryId: "e2",
      tokensBefore: 400,
      details: { readFiles: ["old.ts"], modifiedFiles: [] },
    } as SessionEntry;
    const later = pathOf([user(words(100)), assistant(words(100))]).map((e, i) => ({
      ...e,
      id: `l${i}`,
      parentId: i === 0 ? "k1" : `l${i - 1}`,
    }));
    const path = [...first, compaction, ...later];
    const plan = planCompaction(path, { keepRecentTokens: 150 });
    expect(plan?.previousSummary).toBe("first summary");
    expect(plan?.firstKeptEntryId).toBe("l0");
    // e0 and e1 are already in the first summary; e2 and e3 were kept and now go.
    expect(plan?.messagesToSummarize).toHaveLength(2);
    expect(plan?.fileOperations.readFiles).toEqual(["old.ts"]);
    // The new context after the plan: its summary, then the kept entries.
    const context = buildContextFromPath([
      ...path,
      {
        type: "compaction",
        id: "k2",
        parentId: "l1",
        timestamp: new Date(1_800_000_100_000).toISOString(),
        summary: "second",
        firstKeptEntryId: plan?.firstKeptEntryId,
        tokensBefore: plan?.tokensBefore ?? 0,
      } as SessionEntry,
    ]);
    expect(context.messages.map((m) => m.role)).toEqual(["compactionSummary", "user", "assistant"]);
  });

  it("has nothing to do when the leaf is a compaction or everything fits", () => {
    const path = pathOf([user("hi"), assistant("hello")]);
    expect(planCompaction(path, { keepRecentTokens: 1000 })).toBeUndefined();
    expect(planCompaction([], { keepRecentTokens: 0 })).toBeUndefined();
    const compacted = [
      ...path,
      {
        type: "compaction",
        id: "k",
        parentId: "e1",
        timestamp: path[1]?.timestamp ?? "",
        summary: "s",
        firstKeptEntryId: "e1",
        tokensBefore: 1,
      } as SessionEntry,
    ];
    expect(planCompaction(compacted, { keepRecentTokens: 0 })).toBeUndefined();
  });
});

describe("planCompaction properties", () => {
  type Step = { kind: "user" | "text" | "tools"; size: number };
  const stepArb: fc.Arbitrary<Step> = fc.record({
    kind: fc.constantFrom("user", "text", "tools") as fc.Arbitrary<Step["kind"]>,
    size: fc.integer({ min: 0, max: 300 }),
  });

  it("leaves a context whose tool results all follow their calls, repeatedly", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(stepArb, { maxLength: 12 }), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 0, max: 800 }),
        (rounds, keepRecentTokens) => {
          const path: SessionEntry[] = [];
          let n = 0;
          const add = (entry: Record<string, unknown>) => {
            const id = `x${n++}`;
            path.push({
              ...entry,
              id,
              parentId: path.at(-1)?.id ?? null,
              timestamp: new Date(1_700_000_000_000 + n).toISOString(),
            } as SessionEntry);
          };
          for (const steps of rounds) {
            for (const step of steps) {
              if (step.kind === "user")
                add({ type: "message", message: user("u".repeat(step.size)) });
              else if (step.kind === "text") {
                add({ type: "message", message: assistant("a".repeat(step.size)) });
              } else {
                const id = `c${n}`;
                add({ type: "message", message: assistant("", [[id, "read", { path: id }]]) });
                add({ type: "message", message: toolResult(id, "read", "r".repeat(step.size)) });
              }
            }
            const plan = planCompaction(path, { keepRecentTokens });
            if (!plan) continue;
            add({
              type: "compaction",
              summary: `s${n}`,
              firstKeptEntryId: plan.firstKeptEntryId,
              tokensBefore: plan.tokensBefore,
            });
            const messages = buildContextFromPath(path).messages;
            expect(messages[0]).toMatchObject({ role: "compactionSummary", summary: `s${n - 1}` });
            const calls = new Set<string>();
            for (const message of messages) {
              if (message.role === "assistant" && Array.isArray(message.content)) {
                for (const block of message.content) calls.add(String(block.id));
              }
              if (message.role === "toolResult") {
                expect(calls.has(String(message.toolCallId))).toBe(true);
              }
            }
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
