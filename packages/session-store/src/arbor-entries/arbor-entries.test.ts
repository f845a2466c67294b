import { describe, expect, it } from "vitest";
import {
  type ArborEntryType,
  arborEntrySchemas,
  isArborEntry,
  readArborEntry,
} from "./arbor-entry-registry.js";

const target = { provider: "openai", model: "gpt-4o" };

/**
 * One payload per custom type, as its writer writes it today, and the name of a required
 * string field (for the malformed cases).
 */
const samples: { [T in ArborEntryType]: { payload: Record<string, unknown>; required: string } } = {
  "arbor.checkpoint": {
    payload: {
      snapshotId: "0123456789abcdef0123456789abcdef01234567",
      changed: ["src/a.ts", "notes.md"],
      skipped: [{ path: "big.bin", reason: "too_large", bytes: 20_000_000 }],
      toolCallId: "call-1",
      reason: "after_tool",
      changedCount: 2,
    },
    required: "snapshotId",
  },
  "arbor.orchestration.child": {
    payload: {
      childSessionId: "child-1",
      role: "subagent",
      agent: "researcher",
      agentPath: "main:researcher",
      outcome: "succeeded",
      usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0 },
      cost: 0.01,
    },
    required: "childSessionId",
  },
  "arbor.orchestration.ancestry": {
    payload: {
      originId: "root",
      parentId: "parent",
      agentPath: "main:researcher",
      role: "subagent",
      agent: "researcher",
      file: "<inline>",
      originRunId: "r0",
      runId: "r1",
      parentRunId: "r0",
    },
    required: "parentId",
  },
  "arbor.orchestration.answer": {
    payload: { agent: "billing", session: "s-2" },
    required: "agent",
  },
  "arbor.system-prompt": { payload: { text: "You are careful." }, required: "text" },
  "arbor.context-switch": {
    payload: { directory: "/repo/b", previousDirectory: "/repo/a" },
    required: "directory",
  },
  "arbor.final-turn": { payload: { reason: "max_turns" }, required: "reason" },
  "arbor.answer-feedback": {
    payload: { problems: ["empty"], reasons: ["The answer was empty."], rejectedEntryId: "e7" },
    required: "rejectedEntryId",
  },
  "ttsr-interrupt": {
    payload: { rules: ["no-any"], partialEntryId: "e3" },
    required: "rules",
  },
  "arbor.failover": {
    payload: {
      turn: 0,
      attempt: 1,
      ...target,
      kind: "rate_limit",
      message: "429 Too Many Requests",
      action: "next_target",
      delayMs: 0,
      next: { provider: "anthropic", model: "claude" },
      usage: {
        input: 0,
        output: 0,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 0,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      },
    },
    required: "kind",
  },
  "arbor.context-guard": {
    payload: {
      turn: 2,
      action: "force_final",
      estimate: 9000,
      limit: 8000,
      from: target,
      to: target,
    },
    required: "action",
  },
  "arbor.approval": {
    payload: {
      tool: "bash",
      toolCallId: "call-1",
      subject: "ls -la",
      mode: "ask",
      decision: "allowed",
      by: "user",
      remembered: { tool: "bash", commandPrefix: "ls" },
    },
    required: "toolCallId",
  },
  "arbor.cli.agent-file": { payload: { file: "/repo/agents/main.md" }, required: "file" },
};

const types = Object.keys(arborEntrySchemas) as ArborEntryType[];

/** An entry of `type` carrying `payload` where its writer puts it. */
function entryOf(type: ArborEntryType, payload: unknown): Record<string, unknown> {
  const base = {
    id: "e1",
    parentId: null,
    timestamp: "2026-01-01T00:00:00.000Z",
    customType: type,
  };
  return arborEntrySchemas[type].entryType === "custom"
    ? { ...base, type: "custom", data: payload }
    : { ...base, type: "custom_message", content: "text", display: false, details: payload };
}

const megabyte = "x".repeat(1024 * 1024);

describe.each(types)("%s", (type) => {
  const { payload, required } = samples[type];

  it("reads a valid payload as written (a JSON round trip changes nothing)", () => {
    const read = readArborEntry(entryOf(type, payload), type);
    expect(read).toEqual(payload);
    expect(readArborEntry(JSON.parse(JSON.stringify(entryOf(type, read))), type)).toEqual(payload);
  });

  it("keeps a field it does not know", () => {
    const extended = { ...payload, addedLater: { nested: [1, 2] } };
    expect(readArborEntry(entryOf(type, extended), type)).toEqual(extended);
  });

  it.each([
    ["null", () => null],
    ["an array", () => [payload]],
    ["a string", () => JSON.stringify(payload)],
    ["a missing field", () => ({ ...payload, [required]: undefined })],
    ["a field of the wrong type", () => ({ ...payload, [required]: 42 })],
    ["a field holding an object", () => ({ ...payload, [required]: { toString: "x" } })],
    ["a 1 MB string", () => ({ ...payload, [required]: megabyte })],
  ])("reports %s as unreadable without throwing", (_, malformed) => {
    expect(readArborEntry(entryOf(type, malformed()), type)).toBeUndefined();
  });

  it("is written as one entry type only", () => {
    const entry = entryOf(type, payload);
    const other = entry.type === "custom" ? "custom_message" : "custom";
    const moved = { ...entry, type: other, data: payload, details: payload };
    expect(isArborEntry(entry, type)).toBe(true);
    expect(isArborEntry(moved, type)).toBe(false);
    expect(readArborEntry(moved, type)).toBeUndefined();
  });
});

describe("readArborEntry", () => {
  it("reads nothing from entries of other custom types or from non-entries", () => {
    const child = entryOf(
      "arbor.orchestration.child",
      samples["arbor.orchestration.child"].payload,
    );
    expect(readArborEntry(child, "arbor.orchestration.ancestry")).toBeUndefined();
    for (const value of [undefined, null, 0, "custom", [], [child], () => child]) {
      expect(readArborEntry(value, "arbor.orchestration.child")).toBeUndefined();
      expect(isArborEntry(value, "arbor.orchestration.child")).toBe(false);
    }
  });

  it("never throws, even on an entry whose fields throw when read", () => {
    const hostile = {
      type: "custom",
      customType: "arbor.system-prompt",
      get data(): unknown {
        throw new Error("boom");
      },
    };
    expect(readArborEntry(hostile, "arbor.system-prompt")).toBeUndefined();
  });

  it("reads words a newer writer added to a vocabulary as written", () => {
    const payload = { ...samples["arbor.orchestration.child"].payload, role: "critic" };
    const entry = entryOf("arbor.orchestration.child", { ...payload, outcome: "paused" });
    expect(readArborEntry(entry, "arbor.orchestration.child")).toMatchObject({
      role: "critic",
      outcome: "paused",
    });
  });

  it("rejects negative or non-finite amounts and oversized lists", () => {
    const { payload } = samples["arbor.failover"];
    for (const bad of [{ delayMs: -1 }, { turn: 1.5 }, { delayMs: Number.NaN }]) {
      expect(
        readArborEntry(entryOf("arbor.failover", { ...payload, ...bad }), "arbor.failover"),
      ).toBeUndefined();
    }
    const rules = Array.from({ length: 5000 }, (_, index) => `rule-${index}`);
    expect(readArborEntry(entryOf("ttsr-interrupt", { rules }), "ttsr-interrupt")).toBeUndefined();
  });
});
