import {
  EntryNotFoundError,
  Session,
  SessionFileError,
  SessionLockedError,
  SessionReadOnlyError,
  type SessionStorage,
  storedText,
} from "../index.js";

/** Makes storages for one backend: `fresh()` an empty one, `same(s)` a second handle on it. */
export interface StorageFactory {
  fresh(): Promise<SessionStorage>;
  same(storage: SessionStorage): Promise<SessionStorage>;
  /** Seeds raw bytes, as a file written by another program would hold them. */
  seeded(text: string): Promise<SessionStorage>;
  /** The raw stored text. */
  text(storage: SessionStorage): Promise<string>;
}

const user = (text: string) => ({ role: "user", content: text, timestamp: 1 });
const assistant = (text: string) => ({
  role: "assistant",
  content: [{ type: "text", text }],
  provider: "openai",
  model: "gpt-test",
  stopReason: "stop",
  timestamp: 2,
});

function clock(start = Date.parse("2026-01-01T00:00:00.000Z")) {
  let t = start;
  return () => (t += 1000);
}

const header =
  '{"type":"session","version":3,"id":"s-1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}';
const entry = (id: string, parentId: string | null, text: string) =>
  JSON.stringify({
    type: "message",
    id,
    parentId,
    timestamp: "2026-01-01T00:00:01.000Z",
    message: { role: "user", content: text, timestamp: 1 },
  });

/**
 * The contract every session storage backend passes: the behaviour a session relies on,
 * checked through the public Session API.
 */
/** The matchers the per-log storage contract uses; vitest's and jest's `expect` fit. */
export interface StorageContractMatchers {
  toBe(expected: unknown): void;
  toEqual(expected: unknown): void;
  toMatchObject(expected: object): void;
  toContain(expected: unknown): void;
  toHaveLength(length: number): void;
  toMatch(expected: RegExp | string): void;
  toBeNull(): void;
  toBeUndefined(): void;
  toThrow(expected?: unknown): void;
  not: StorageContractMatchers;
  rejects: { toThrow(expected?: unknown): Promise<void> };
}

/** The test functions the per-log storage contract runs under (vitest's fit). */
export interface StorageContractApi {
  describe(name: string, body: () => void): void;
  it(name: string, body: () => Promise<void>): void;
  expect(actual: unknown): StorageContractMatchers;
}

/**
 * The contract every per-log {@link SessionStorage} passes: round trips of every entry type,
 * navigation, labels, unknown entries, torn and corrupt lines, stream-rule injections, one
 * writer at a time, forks and titles. The test functions are parameters, so a backend
 * written outside this repository runs it under its own runner.
 *
 * @example
 * ```ts
 * // describe, it and expect of the test runner (vitest's, for instance)
 * sessionStorageContract({ describe, it, expect }, "my backend", factory);
 * ```
 */
export function sessionStorageContract(
  api: StorageContractApi,
  name: string,
  factory: StorageFactory,
): void {
  const { describe, it, expect } = api;
  describe(`SessionStorage contract: ${name}`, () => {
    const open = async (storage: SessionStorage, extra: Parameters<typeof Session.open>[1] = {}) =>
      Session.open(storage, { now: clock(), ...extra });

    it("creates a session with a header and reopens it with the same entries and leaf", async () => {
      const storage = await factory.fresh();
      const session = await open(storage, { create: true, cwd: "/home/project" });
      const a = await session.appendMessage(user("hello"));
      const b = await session.appendMessage(assistant("hi"));
      expect(session.getLeafId()).toBe(b);
      expect(session.getLeafEntry()).toEqual(session.getEntry(b));
      expect(session.getEntry(b)?.parentId).toBe(a);
      await session.close();

      const again = await open(await factory.same(storage));
      expect(again.getHeader()).toMatchObject({
        type: "session",
        version: 3,
        cwd: "/home/project",
      });
      expect(again.getEntries().map((e) => e.id)).toEqual([a, b]);
      expect(again.getLeafId()).toBe(b);
      expect(again.buildSessionContext().model).toEqual({
        provider: "openai",
        modelId: "gpt-test",
      });
      await again.close();
    });

    it("appends every entry type, each resolving with its id and advancing the leaf", async () => {
      const storage = await factory.fresh();
      const session = await open(storage, { create: true });
      const ids: string[] = [];
      const step = async (append: Promise<string>) => {
        const id = await append;
        expect(ids).not.toContain(id);
        expect(session.getLeafId()).toBe(id);
        expect(session.getEntry(id)?.parentId ?? null).toBe(ids.at(-1) ?? null);
        ids.push(id);
        return id;
      };
      const first = await step(session.appendMessage(user("one")));
      await step(session.appendModelChange("anthropic", "claude-test"));
      await step(session.appendThinkingLevelChange("high"));
      await step(session.appendCustomEntry("plugin-state", { count: 1 }));
      await step(session.appendCustomMessageEntry("note", "shown to the model", true));
      await step(session.appendLabelChange(first, "start"));
      await step(session.appendSessionInfo("named"));
      await step(session.appendTtsrInjection([{ rule: "r", turn: 0, interrupt: 0 }]));
      await step(session.appendCompaction("summary of one", first, 10));
      await step(session.appendMessage(assistant("two")));
      expect(session.getEntries().map((e) => e.type)).toEqual([
        "message",
        "model_change",
        "thinking_level_change",
        "custom",
        "custom_message",
        "label",
        "session_info",
        "ttsr_injection",
        "compaction",
        "message",
      ]);
      // Extension state and bookkeeping never reach the model; custom messages do.
      expect(session.buildSessionContext()).toMatchObject({
        thinkingLevel: "high",
        model: { provider: "openai", modelId: "gpt-test" },
      });
      expect(session.buildSessionContext().messages.map((m) => m.role)).toEqual([
        "compactionSummary",
        "user",
        "custom",
        "assistant",
      ]);
      await session.close();

      const again = await open(await factory.same(storage));
      expect(again.getEntries()).toEqual(session.getEntries());
      expect(again.getLeafId()).toBe(ids.at(-1));
      expect(again.getEntry(ids[3] as string)).toMatchObject({
        type: "custom",
        customType: "plugin-state",
        data: { count: 1 },
      });
      await again.close();
    });

    it("refuses to open nothing unless asked to create", async () => {
      await expect(open(await factory.fresh())).rejects.toThrow(/no session at .*create: true/);
    });

    it("persists navigation: the leaf survives a reopen after branch() and resetLeaf()", async () => {
      const storage = await factory.fresh();
      const session = await open(storage, { create: true });
      const a = await session.appendMessage(user("one"));
      await session.appendMessage(assistant("two"));
      await session.branch(a);
      await session.close();

      const reopened = await open(await factory.same(storage));
      expect(reopened.getLeafId()).toBe(a);
      const c = await reopened.appendMessage(user("other branch"));
      expect(reopened.getChildren(a).map((e) => e.id)).toHaveLength(2);
      expect(reopened.getEntry(c)?.parentId).toBe(a);
      await reopened.resetLeaf();
      await reopened.close();

      const third = await open(await factory.same(storage));
      expect(third.getLeafId()).toBeNull();
      expect(third.buildSessionContext().messages).toEqual([]);
      // Leaf pointers are not entries of the tree.
      expect(third.getEntries().map((e) => e.type)).toEqual(["message", "message", "message"]);
      await third.close();
    });

    it("records the abandoned leaf in a branch summary", async () => {
      const session = await open(await factory.fresh(), { create: true });
      const a = await session.appendMessage(user("one"));
      const b = await session.appendMessage(assistant("two"));
      const summaryId = await session.branchWithSummary(a, "tried two, it failed");
      expect(session.getEntry(summaryId)).toMatchObject({
        type: "branch_summary",
        parentId: a,
        fromId: b,
      });
      expect(session.buildSessionContext().messages.at(-1)).toMatchObject({
        role: "branchSummary",
        summary: "tried two, it failed",
        fromId: b,
      });
      const rootSummary = await session.branchWithSummary(null, "start over");
      expect(session.getEntry(rootSummary)).toMatchObject({ parentId: null, fromId: summaryId });
      await session.close();
    });

    it("sets and clears labels, and rejects a label on a missing entry", async () => {
      const session = await open(await factory.fresh(), { create: true });
      const a = await session.appendMessage(user("one"));
      await session.appendLabelChange(a, "start");
      expect(session.getLabel(a)).toBe("start");
      expect(session.getTree()[0]?.label).toBe("start");
      await session.appendLabelChange(a, "");
      expect(session.getLabel(a)).toBeUndefined();
      expect(() => session.appendLabelChange("nope", "x")).toThrow(EntryNotFoundError);
      await session.close();
    });

    it("keeps unknown entry types and unknown fields through a reopen", async () => {
      const odd =
        '{"type":"future_thing","id":"f1","parentId":"m1","timestamp":"2026-01-01T00:00:02.000Z","payload":{"x":[1,2]}}';
      const withExtra = entry("m1", null, "hi").replace(
        '{"type":"message"',
        '{"type":"message","extra":{"keep":true}',
      );
      const storage = await factory.seeded(`${header}\n${withExtra}\n${odd}\n`);
      const session = await open(storage);
      expect(session.getEntry("f1")).toEqual(JSON.parse(odd));
      expect(session.getEntry("m1")).toMatchObject({ extra: { keep: true } });
      await session.appendMessage(user("after"));
      await session.close();
      const text = await factory.text(storage);
      expect(text.startsWith(`${header}\n${withExtra}\n${odd}\n`)).toBe(true);
    });

    it("sets a torn last line aside before the next append, which stays intact", async () => {
      const torn = entry("m2", "m1", "cut sho").slice(0, 60);
      const storage = await factory.seeded(`${header}\n${entry("m1", null, "hi")}\n${torn}`);
      const session = await open(storage);
      expect(session.problems.map((p) => p.kind)).toEqual(["torn_tail"]);
      expect(session.getLeafId()).toBe("m1");
      const next = await session.appendMessage(user("next"));
      await session.close();

      const again = await open(await factory.same(storage));
      expect(again.problems).toEqual([]);
      expect(again.getEntries().map((e) => e.id)).toEqual(["m1", next]);
      expect(session.problems[0]?.message).toMatch(/kept in .*torn/);
      await again.close();
    });

    it("hands a writer whole lines, with the torn last line it set aside as a problem", async () => {
      const whole = `${header}\n${entry("m1", null, "hi")}\n`;
      const textOf = storedText;
      for (const torn of [entry("m2", "m1", "cut").slice(0, 40), '{"type', "{", '{"a":"\\u00']) {
        const storage = await factory.seeded(`${whole}${torn}`);
        // A reader is handed what is stored; the session reports the torn line itself.
        const seen = await (await factory.same(storage)).read();
        expect(textOf(seen?.content ?? "")).toBe(`${whole}${torn}`);
        await storage.lock();
        const stored = await storage.read();
        expect(textOf(stored?.content ?? "")).toBe(whole);
        expect(stored?.problems.map((p) => [p.kind, p.line])).toEqual([["torn_tail", 3]]);
        expect(await factory.text(storage)).toBe(whole);
        await storage.close();
      }
      const unfinished = await factory.seeded(`${whole}${entry("m2", "m1", "whole")}`);
      await unfinished.lock();
      const completed = await unfinished.read();
      expect(textOf(completed?.content ?? "")).toBe(`${whole}${entry("m2", "m1", "whole")}\n`);
      expect(completed?.problems).toEqual([]);
      await unfinished.close();
      // Bytes that are not a session are never changed, even by a writer.
      for (const text of ["\u0000\u0001binary", '{"type":"message","id":"x"}\n{"ty']) {
        const other = await factory.seeded(text);
        await other.lock();
        await other.read();
        expect(await factory.text(other)).toBe(text);
        await other.close();
      }
    });

    it("completes a last line that lacks only its newline", async () => {
      const storage = await factory.seeded(`${header}\n${entry("m1", null, "hi")}`);
      const session = await open(storage);
      const next = await session.appendMessage(user("next"));
      await session.close();
      const again = await open(await factory.same(storage));
      expect(again.getEntries().map((e) => e.id)).toEqual(["m1", next]);
      await again.close();
    });

    it("reports corrupt middle lines without losing the valid ones around them", async () => {
      const glued = `${entry("m2", "m1", "torn").slice(0, 50)}${entry("m3", "m1", "whole")}`;
      const storage = await factory.seeded(
        `${header}\n${entry("m1", null, "a")}\nnot json at all\n{"type":"message"}\n${glued}\n${entry("m4", "m3", "d")}\n`,
      );
      const session = await open(storage);
      expect(session.getEntries().map((e) => e.id)).toEqual(["m1", "m3", "m4"]);
      expect(session.problems.map((p) => [p.kind, p.line])).toEqual([
        ["invalid_json", 3],
        ["invalid_entry", 4],
        ["invalid_json", 5],
      ]);
      expect(session.problems[2]?.recoveredId).toBe("m3");
      await session.close();
    });

    it("stores stream-rule injections with their turn counters and reopens them exactly", async () => {
      const storage = await factory.fresh();
      const session = await open(storage, { create: true });
      const injected = [
        { rule: "no-console", turn: 2, interrupt: 5 },
        { rule: "no-any", turn: 2, interrupt: 5, note: "kept" },
      ];
      const id = await session.appendTtsrInjection(injected);
      await session.close();
      const again = await open(await factory.same(storage));
      expect(again.getEntry(id)).toMatchObject({ type: "ttsr_injection", injectedRules: injected });
      // Injections are bookkeeping, never part of what the model is sent.
      expect(again.buildSessionContext().messages).toEqual([]);
      await again.close();

      const bad = `{"type":"ttsr_injection","id":"t1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","injectedRules":[{"rule":"x","turn":-1,"interrupt":0}]}`;
      const hostile = await open(await factory.seeded(`${header}\n${bad}\n`), { readOnly: true });
      expect(hostile.getEntry("t1")).toBeUndefined();
      expect(hostile.problems.map((p) => [p.kind, p.line])).toEqual([["invalid_entry", 2]]);
    });

    it("never rewrites a file whose first line is not a session header", async () => {
      for (const text of [
        "hello world\nsecond line\n",
        '{"type":"message","id":"x"}\n',
        "\u0000\u0001binary",
      ]) {
        const storage = await factory.seeded(text);
        const error = await open(storage).catch((e: unknown) => e);
        expect(SessionFileError.isInstance(error)).toBe(true);
        expect((error as Error).message).toContain(storage.location);
        expect(await factory.text(storage)).toBe(text);
      }
    });

    it("lets one writer in at a time, and never blocks readers", async () => {
      const storage = await factory.fresh();
      const writer = await open(storage, { create: true });
      await writer.appendMessage(user("mine"));
      const error = await open(await factory.same(storage)).catch((e: unknown) => e);
      expect(SessionLockedError.isInstance(error)).toBe(true);
      expect((error as SessionLockedError).holderPid).toBe(process.pid);
      const reader = await open(await factory.same(storage), { readOnly: true });
      expect(reader.getEntries()).toHaveLength(1);
      expect(() => reader.appendMessage(user("no"))).toThrow(SessionReadOnlyError);
      await writer.close();
      const next = await open(await factory.same(storage));
      await next.close();
    });

    it("forks a path into a new session with parentSession and the path's labels", async () => {
      const storage = await factory.fresh();
      const session = await open(storage, { create: true });
      const a = await session.appendMessage(user("one"));
      const b = await session.appendMessage(assistant("two"));
      await session.appendLabelChange(a, "start");
      await session.branch(a);
      await session.appendMessage(user("elsewhere"));
      const forked = await session.fork(b, { storage: await factory.fresh() });
      expect(forked.getHeader().parentSession).toBe(session.location);
      expect(forked.getBranch(b).map((e) => e.id)).toEqual([a, b]);
      expect(forked.getLabel(a)).toBe("start");
      expect(forked.getEntries().filter((e) => e.type === "message")).toHaveLength(2);
      await forked.close();
      await session.close();
    });

    it("titles a session from its first user message until one is set", async () => {
      const session = await open(await factory.fresh(), { create: true, titleLength: 30 });
      expect(session.getTitle()).toBeUndefined();
      await session.appendMessage(
        user("  Please   refactor the\nsession store so that it is faster  "),
      );
      expect(session.getTitle()).toBe("Please refactor the session…");
      await session.setTitle("  Faster store ");
      expect(session.getTitle()).toBe("Faster store");
      expect(session.getSessionName()).toBe("Faster store");
      await session.clearTitle();
      expect(session.getTitle()).toBe("Please refactor the session…");
      const ok = await session.regenerateTitle(async () => '"Speeding up the store"');
      expect(ok).toEqual({ title: "Speeding up the store" });
      const failed = await session.regenerateTitle(async () => {
        throw new Error("model down");
      });
      expect(failed.title).toBe("Speeding up the store");
      expect(String(failed.error)).toContain("model down");
      await session.close();
    });
  });
}
