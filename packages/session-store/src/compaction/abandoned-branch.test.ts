import { describe, expect, it } from "vitest";
import type { SessionEntry } from "../format/entries.js";
import { collectAbandonedBranch } from "./abandoned-branch.js";
import { assistant, pathOf, user } from "./entry-factory.test-util.js";

describe("collectAbandonedBranch", () => {
  const trunk = pathOf([user("start"), assistant("ok")]);
  const branch = (prefix: string, texts: string[]): SessionEntry[] =>
    texts.map((text, i) => ({
      type: "message",
      id: `${prefix}${i}`,
      parentId: i === 0 ? "e1" : `${prefix}${i - 1}`,
      timestamp: new Date(1_700_000_100_000 + i).toISOString(),
      message:
        i % 2 === 0 ? user(text) : assistant(text, [["c", "edit", { path: `${prefix}.ts` }]]),
    })) as SessionEntry[];

  it("collects the entries after the common ancestor, newest first within the budget", () => {
    const old = [...trunk, ...branch("a", ["x".repeat(400), "y".repeat(40), "z".repeat(40)])];
    const target = [...trunk, ...branch("b", ["other"])];
    const collected = collectAbandonedBranch(old, target, { maxTokens: 30 });
    expect(collected.commonAncestorId).toBe("e1");
    expect(collected.entries.map((e) => e.id)).toEqual(["a0", "a1", "a2"]);
    // a2 and a1 cost 10 tokens (+ the tool call) each; a0 (100 tokens) does not fit.
    expect(collected.messages).toEqual(
      old.slice(3).map((entry) => (entry as { message: unknown }).message),
    );
    expect(collected.omittedMessages).toBe(1);
    expect(collected.fileOperations.modifiedFiles).toEqual(["a.ts"]);
  });

  it("always keeps the newest message, and has no ancestor across roots", () => {
    const old = branch("a", ["x".repeat(4000)]).map((e) => ({ ...e, parentId: null }));
    const collected = collectAbandonedBranch(old, trunk, { maxTokens: 1 });
    expect(collected.commonAncestorId).toBeNull();
    expect(collected.messages).toHaveLength(1);
  });

  it("collects nothing when the target is on the same path", () => {
    const collected = collectAbandonedBranch(trunk, trunk.slice(0, 1), { maxTokens: 100 });
    expect(collected.entries.map((e) => e.id)).toEqual(["e1"]);
    expect(collectAbandonedBranch(trunk.slice(0, 1), trunk, { maxTokens: 100 }).entries).toEqual(
      [],
    );
  });
});
