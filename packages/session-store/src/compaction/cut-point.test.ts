import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AgentMessage, SessionEntry } from "../format/entries.js";
import { toContextMessage } from "../tree/session-context.js";
import { findCutCandidates, findCutPoint } from "./cut-point.js";
import { assistant, pathOf, toolResult, user } from "./entry-factory.test-util.js";
import { estimateEntryTokens } from "./token-estimate.js";

const words = (tokens: number) => "x".repeat(tokens * 4);

describe("findCutPoint", () => {
  it("keeps at least keepRecentTokens and cuts at a user message when one is there", () => {
    const path = pathOf([
      user(words(100)),
      assistant(words(100)),
      user(words(100)),
      assistant(words(100)),
      user(words(100)),
      assistant(words(100)),
    ]);
    expect(findCutPoint(path, { keepRecentTokens: 150 })).toEqual({
      firstKeptIndex: 4,
      turnStartIndex: -1,
      splitTurn: false,
    });
    expect(findCutPoint(path, { keepRecentTokens: 250 })).toEqual({
      firstKeptIndex: 3,
      turnStartIndex: 2,
      splitTurn: true,
    });
    expect(findCutPoint(path, { keepRecentTokens: 350 })).toEqual({
      firstKeptIndex: 2,
      turnStartIndex: -1,
      splitTurn: false,
    });
  });

  it("never cuts between a tool call and its result, and reports a cut inside a turn", () => {
    const path = pathOf([
      user(words(50)),
      assistant("", [["c1", "read", { path: "a.ts" }]]),
      toolResult("c1", "read", words(400)),
      assistant("", [["c2", "read", { path: "b.ts" }]]),
      toolResult("c2", "read", words(400)),
      assistant(words(10)),
    ]);
    // 10 + 400 tokens reaches 300 at the second result (index 4), which is not a candidate;
    // the nearest candidate at or before it is the call that produced it (index 3).
    expect(findCutPoint(path, { keepRecentTokens: 300 })).toEqual({
      firstKeptIndex: 3,
      turnStartIndex: 0,
      splitTurn: true,
    });
  });

  it("keeps everything when the range holds less than the budget", () => {
    const path = pathOf([user("hi"), assistant("hello")]);
    expect(findCutPoint(path, { keepRecentTokens: 1000 }).firstKeptIndex).toBe(0);
  });

  it("starts its range at startIndex", () => {
    const path = pathOf([user(words(100)), assistant(words(100)), user(words(100))]);
    expect(findCutPoint(path, { startIndex: 2, keepRecentTokens: 10 }).firstKeptIndex).toBe(2);
  });

  it("does not treat a custom message between a call and its result as a cut point", () => {
    const path = pathOf([
      user("go"),
      assistant("", [["c1", "bash", {}]]),
      {
        type: "custom_message",
        customType: "note",
        content: "a note",
        display: false,
      } as unknown as SessionEntry,
      toolResult("c1", "bash", "ok"),
      user("next"),
    ]);
    expect(findCutCandidates(path)).toEqual([0, 1, 4]);
  });
});

type Step = { kind: "user" | "text" | "tools"; size: number; calls: number };
const stepArb: fc.Arbitrary<Step> = fc.record({
  kind: fc.constantFrom("user", "text", "tools") as fc.Arbitrary<Step["kind"]>,
  size: fc.integer({ min: 0, max: 400 }),
  calls: fc.integer({ min: 1, max: 3 }),
});

function buildPath(steps: Step[]): SessionEntry[] {
  const messages: AgentMessage[] = [];
  let call = 0;
  for (const step of steps) {
    if (step.kind === "user") messages.push(user("u".repeat(step.size)));
    else if (step.kind === "text") messages.push(assistant("a".repeat(step.size)));
    else {
      const ids = Array.from({ length: step.calls }, () => `c${call++}`);
      messages.push(
        assistant(
          "",
          ids.map((id) => [id, "read", { path: `${id}.ts` }]),
        ),
      );
      for (const id of ids) messages.push(toolResult(id, "read", "r".repeat(step.size)));
    }
  }
  return pathOf(messages);
}

describe("findCutPoint properties", () => {
  it("keeps the budget, never orphans a result, and finds the turn start", () => {
    fc.assert(
      fc.property(
        fc.array(stepArb, { maxLength: 40 }),
        fc.integer({ min: 0, max: 3000 }),
        (steps, keepRecentTokens) => {
          const path = buildPath(steps);
          const cut = findCutPoint(path, { keepRecentTokens });
          const kept = path.slice(cut.firstKeptIndex);
          const keptTokens = kept.reduce((sum, e) => sum + estimateEntryTokens(e), 0);
          if (cut.firstKeptIndex > 0) expect(keptTokens).toBeGreaterThanOrEqual(keepRecentTokens);
          // Every kept tool result has its call kept too.
          const keptCalls = new Set<string>();
          for (const entry of kept) {
            const message = toContextMessage(entry) as AgentMessage;
            if (message.role === "assistant" && Array.isArray(message.content)) {
              for (const block of message.content) {
                if (block.type === "toolCall") keptCalls.add(String(block.id));
              }
            }
            if (message.role === "toolResult") {
              expect(keptCalls.has(String(message.toolCallId))).toBe(true);
            }
          }
          const first =
            cut.firstKeptIndex > 0
              ? toContextMessage(path[cut.firstKeptIndex] as SessionEntry)
              : undefined;
          if (cut.splitTurn) {
            expect(first?.role).not.toBe("user");
            const start = toContextMessage(path[cut.turnStartIndex] as SessionEntry);
            expect(start?.role).toBe("user");
            const between = path.slice(cut.turnStartIndex + 1, cut.firstKeptIndex);
            expect(between.every((e) => toContextMessage(e)?.role !== "user")).toBe(true);
          } else {
            expect(cut.turnStartIndex).toBe(-1);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("findCutPoint on damaged paths", () => {
  it("cuts past unreadable lines, orphan results and calls whose result was never stored", () => {
    const path = pathOf([
      user(words(100)),
      {
        type: "unreadable",
        error: "Unexpected end of JSON input",
      } as unknown as SessionEntry,
      toolResult("ghost", "read", words(50)),
      assistant("", [["lost", "bash", { command: "sleep 999" }]]),
      user(words(100)),
      assistant(words(100)),
    ]);
    // The call "lost" has no result (the process stopped while it ran): nothing waits on it.
    expect(findCutCandidates(path)).toEqual([0, 3, 4, 5]);
    expect(findCutPoint(path, { keepRecentTokens: 150 })).toEqual({
      firstKeptIndex: 4,
      turnStartIndex: -1,
      splitTurn: false,
    });
  });
});
