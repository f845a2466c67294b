import { describe, expect, it } from "vitest";
import {
  DuplicateEntryIdError,
  EntryNotFoundError,
  InvalidEntryError,
  SessionIoError,
  SessionReadOnlyError,
} from "./errors/index.js";
import type { SessionEntry } from "./format/entries.js";
import { storedText } from "./format/session-log.js";
import { Session } from "./session.js";
import { MemorySessionStorage } from "./storage/memory-storage.js";
import type { SessionStorage } from "./storage/session-storage.js";

const time = "2026-01-01T00:00:00.000Z";
const user = (id: string, parentId: string | null, text = id): SessionEntry =>
  ({
    type: "message",
    id,
    parentId,
    timestamp: time,
    message: { role: "user", content: text, timestamp: 1 },
  }) as SessionEntry;

async function stored(storage: SessionStorage): Promise<string> {
  const log = await storage.read();
  return storedText(log?.content ?? "");
}

/** A session with two entries, `a` then `b`, and its storage. */
async function twoEntries(storage: SessionStorage = new MemorySessionStorage()) {
  const session = await Session.open(storage, { create: true, sessionId: "s1" });
  await session.appendEntries([user("a", null), user("b", "a")]);
  return { session, storage };
}

/** What a user sees of a session, to compare before and after a refused append. */
function view(session: Session) {
  return {
    leaf: session.getLeafId(),
    entries: session.getEntries().map((e) => JSON.stringify(e)),
    context: session.buildSessionContext().messages.length,
  };
}

describe("Session.appendEntries", () => {
  it("stores entries with their own ids, parents and timestamps; the leaf moves to the last", async () => {
    const { session, storage } = await twoEntries();
    const ids = await session.appendEntries([user("c", "a"), user("d", "c")]);
    expect(ids).toEqual(["c", "d"]);
    expect(session.getLeafId()).toBe("d");
    expect(session.getChildren("a").map((e) => e.id)).toEqual(["b", "c"]);
    await session.close();
    const again = await Session.open(storage, { readOnly: true });
    expect(again.getEntries().map((e) => [e.id, e.parentId, e.timestamp])).toEqual([
      ["a", null, time],
      ["b", "a", time],
      ["c", "a", time],
      ["d", "c", time],
    ]);
    expect(again.getLeafId()).toBe("d");
  });

  it("keeps unknown entry types and fields, and labels an entry of the same batch", async () => {
    const { session, storage } = await twoEntries();
    const odd = { type: "tool_x", id: "x", parentId: "b", timestamp: time, extra: { n: 1 } };
    const withField = { ...user("y", "x"), importedFrom: { line: 7 } } as SessionEntry;
    const label = {
      type: "label",
      id: "l",
      parentId: "y",
      timestamp: time,
      targetId: "y",
      label: "named",
    };
    await session.appendEntries([odd as unknown as SessionEntry, withField, label as SessionEntry]);
    expect(session.getLabel("y")).toBe("named");
    await session.close();
    const text = await stored(storage);
    expect(text).toContain('"extra":{"n":1}');
    expect(text).toContain('"importedFrom":{"line":7}');
    const again = await Session.open(storage, { readOnly: true });
    expect(again.getEntry("x")).toMatchObject({ type: "tool_x", extra: { n: 1 } });
  });

  const hostile: [string, () => unknown[], (error: unknown) => boolean, RegExp][] = [
    [
      "an id the session holds",
      () => [user("c", "b"), user("a", "c")],
      DuplicateEntryIdError.isInstance,
      /"a" is already taken/,
    ],
    [
      "an id twice in the batch",
      () => [user("c", "b"), user("c", "b")],
      DuplicateEntryIdError.isInstance,
      /"c" is already taken/,
    ],
    [
      "a parent that is nowhere",
      () => [user("c", "b"), user("d", "nope")],
      EntryNotFoundError.isInstance,
      /entry "d" refers to "nope"/,
    ],
    [
      "a parent later in the batch",
      () => [user("c", "d"), user("d", "b")],
      EntryNotFoundError.isInstance,
      /entry "c" refers to "d"/,
    ],
    [
      "a cycle of two",
      () => [user("c", "d"), user("d", "c")],
      EntryNotFoundError.isInstance,
      /entry "c" refers to "d"/,
    ],
    [
      "an entry that is its own parent",
      () => [user("c", "c")],
      EntryNotFoundError.isInstance,
      /entry "c" refers to "c"/,
    ],
    [
      "a label of nothing",
      () => [{ type: "label", id: "l", parentId: "b", timestamp: time, targetId: "ghost" }],
      EntryNotFoundError.isInstance,
      /entry "l" refers to "ghost"/,
    ],
    [
      "a message without its message",
      () => [user("c", "b"), { type: "message", id: "d", parentId: "c", timestamp: time }],
      InvalidEntryError.isInstance,
      /message entry: message/,
    ],
    [
      "an id that is not a string",
      () => [{ ...user("c", "b"), id: 42 }],
      InvalidEntryError.isInstance,
      /id/,
    ],
    [
      "a value JSON cannot hold",
      () => [{ ...user("c", "b"), data: 10n }],
      InvalidEntryError.isInstance,
      /data/,
    ],
    [
      "a leaf pointer",
      () => [{ type: "leaf", id: "p", parentId: "a", timestamp: time, targetId: "a" }],
      InvalidEntryError.isInstance,
      /leaf pointer/,
    ],
    ["not an object", () => [user("c", "b"), null], InvalidEntryError.isInstance, /entry/],
  ];

  it.each(hostile)(
    "refuses %s with a typed error and stores nothing",
    async (_n, batch, is, text) => {
      const { session, storage } = await twoEntries();
      const before = { view: view(session), bytes: await stored(storage) };
      const error = await session.appendEntries(batch() as SessionEntry[]).catch((e: unknown) => e);
      expect(is(error)).toBe(true);
      expect(String((error as Error).message)).toMatch(text);
      expect(view(session)).toEqual(before.view);
      expect(await stored(storage)).toBe(before.bytes);
      // The session still appends, and a fresh open sees only the first two entries.
      await session.appendEntries([user("ok", "b")]);
      await session.close();
      const again = await Session.open(storage, { readOnly: true });
      expect(again.getEntries().map((e) => e.id)).toEqual(["a", "b", "ok"]);
    },
  );

  it("takes the whole batch out of memory again when the storage refuses the append", async () => {
    const inner = new MemorySessionStorage();
    let refuse = false;
    const storage: SessionStorage = {
      location: inner.location,
      read: () => inner.read(),
      lock: () => inner.lock(),
      append: (lines) =>
        refuse
          ? Promise.reject(new SessionIoError(inner.location, "disk_full", "append", "ENOSPC"))
          : inner.append(lines),
      replace: (lines, suffix) => inner.replace(lines, suffix),
      close: () => inner.close(),
      delete: () => inner.delete(),
    };
    const { session } = await twoEntries(storage);
    const before = { view: view(session), bytes: await stored(inner) };
    refuse = true;
    await expect(
      session.appendEntries([user("c", "b"), user("d", "c"), user("e", "c")]),
    ).rejects.toSatisfy(SessionIoError.isInstance);
    expect(view(session)).toEqual(before.view);
    expect(session.getEntry("c")).toBeUndefined();
    expect(await stored(inner)).toBe(before.bytes);
  });

  it("is refused on a read-only session and does nothing for an empty batch", async () => {
    const { session, storage } = await twoEntries();
    expect(await session.appendEntries([])).toEqual([]);
    expect(session.getLeafId()).toBe("b");
    await session.close();
    const reader = await Session.open(storage, { readOnly: true });
    await expect(reader.appendEntries([user("c", "b")])).rejects.toSatisfy(
      SessionReadOnlyError.isInstance,
    );
  });
});
