import { MemorySessionStore, SessionLockedError } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import { LendingSessionStore } from "./lending-session-store.js";

describe("LendingSessionStore", () => {
  it("hands out the lent session itself, by id or location; its close() leaves it open and writable", async () => {
    const store = new LendingSessionStore(new MemorySessionStore());
    const session = await store.create({ cwd: "/project" });
    const giveBack = store.lend(session);
    for (const key of [session.id, session.location]) {
      const borrowed = await store.open(key);
      expect(borrowed.id).toBe(session.id);
      await borrowed.appendCustomEntry("test.borrowed", { key });
      await borrowed.close();
    }
    giveBack();
    // Both writes went to the one open session, which is still open after the borrowers closed.
    const id = await session.appendCustomEntry("test.owner", {});
    expect(session.getEntries().map((entry) => entry.type)).toEqual(["custom", "custom", "custom"]);
    expect(session.getEntry(id)).toBeDefined();
    await session.close();
  });

  it("opens everything else through the store it wraps: other sessions, read-only opens, the session once given back", async () => {
    const inner = new MemorySessionStore();
    const store = new LendingSessionStore(inner);
    const lent = await store.create({ cwd: "/project" });
    const other = await store.create({ cwd: "/project" });
    const otherId = other.id;
    await other.close();
    const giveBack = store.lend(lent);
    const opened = await store.open(otherId);
    expect(opened.id).toBe(otherId);
    await opened.close();
    const reader = await store.open(lent.id, { readOnly: true });
    expect(reader).not.toBe(lent);
    await reader.close();
    giveBack();
    // Given back, a second writer is refused by the lock as before.
    const error = await store.open(lent.id).catch((caught: unknown) => caught);
    expect(SessionLockedError.isInstance(error)).toBe(true);
    await lent.close();
  });

  it("refuses to lend a second session while one is lent", async () => {
    const store = new LendingSessionStore(new MemorySessionStore());
    const first = await store.create({ cwd: "/a" });
    const second = await store.create({ cwd: "/b" });
    const giveBack = store.lend(first);
    expect(() => store.lend(second)).toThrow(/lent already/);
    giveBack();
    store.lend(second)();
    await first.close();
    await second.close();
  });
});
