import { appendFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { storedText as textOfContent } from "../format/session-log.js";
import { MemorySessionStorage } from "../storage/memory-storage.js";
import { FileSessionStore } from "../store/file-session-store.js";
import { MemorySessionStore } from "../store/memory-session-store.js";
import type { SessionStore } from "../store/session-store.js";
import { readClaudeCodeFile } from "./claude-code-reader.js";
import { defined } from "./import-test-util.js";
import type { ImportedLog } from "./imported-log.js";
import { importIntoStore } from "./store-import.js";
import { spareCopyId } from "./stored-rewrite.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "arbor-import-append-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Stores by backend; a file store is made in a folder of its own for each `name`. */
const stores: [string, (name?: string) => SessionStore][] = [
  ["memory", () => new MemorySessionStore()],
  [
    "file",
    (name = "store") => new FileSessionStore({ root: join(dir, name), durability: "never" }),
  ],
];

/** A Claude Code line: a user or an assistant message, `n` in a chain. */
function ccLine(n: number): string {
  const base = {
    uuid: `u${n}`,
    parentUuid: n === 1 ? null : `u${n - 1}`,
    sessionId: "s-live",
    timestamp: new Date(Date.UTC(2025, 9, 1, 10, 0, n)).toISOString(),
  };
  return JSON.stringify(
    n % 2 === 1
      ? { ...base, type: "user", message: { role: "user", content: `question ${n}` } }
      : {
          ...base,
          type: "assistant",
          message: {
            id: `msg_${n}`,
            role: "assistant",
            model: "claude-sonnet-4-5",
            content: [{ type: "text", text: `answer ${n}` }],
            usage: { input_tokens: 10, output_tokens: 5 },
          },
        },
  );
}

const lines = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `${ccLine(from + i)}\n`).join("");

/**
 * A store that records the calls that replace stored sessions (`delete`, `importLog`) and
 * can fail one of them, as a process dying at that point would leave the store.
 */
class WatchedStore implements SessionStore {
  readonly calls: string[] = [];
  /** The calls that found something to change (not looking for a spare copy that is not there). */
  get writes(): string[] {
    return this.calls.filter((c, i) => !c.endsWith(".replacing") || !this.missed.has(i));
  }
  private readonly missed = new Set<number>();
  /** The call to fail (once), as `calls` names it. */
  failOn: string | undefined;
  constructor(private readonly inner: SessionStore) {}
  private note(call: string): void {
    this.calls.push(call);
    if (this.failOn === call) {
      this.failOn = undefined;
      throw new Error(`died at ${call}`);
    }
  }
  create: SessionStore["create"] = (o) => this.inner.create(o);
  open: SessionStore["open"] = (id, o) => this.inner.open(id, o);
  has: SessionStore["has"] = (id, o) => this.inner.has(id, o);
  list: SessionStore["list"] = (q) => this.inner.list(q);
  fork: SessionStore["fork"] = (id, leaf, o) => this.inner.fork(id, leaf, o);
  close: SessionStore["close"] = () => this.inner.close();
  delete: SessionStore["delete"] = async (id, o) => {
    this.note(`delete ${id}`);
    const at = this.calls.length - 1;
    return this.inner.delete(id, o).catch((error: unknown) => {
      this.missed.add(at);
      throw error;
    });
  };
  importLog: SessionStore["importLog"] = async (text, o) => {
    this.note(`importLog ${JSON.parse(text.slice(0, text.indexOf("\n"))).id}`);
    return this.inner.importLog(text, o);
  };
}

async function read(path: string): Promise<ImportedLog> {
  return defined((await readClaudeCodeFile(path))[0]);
}

/** The stored text of a session, as its backend holds it. */
async function storedText(store: SessionStore, id: string): Promise<string> {
  const session = await store.open(id, { readOnly: true });
  const location = session.location;
  await session.close();
  if (!location.startsWith("memory:")) return readFile(location, "utf8");
  const log = await new MemorySessionStorage(location).read();
  return textOfContent(log?.content ?? "");
}

async function entryLines(store: SessionStore, id: string): Promise<string[]> {
  const session = await store.open(id, { readOnly: true });
  const result = session.getEntries().map((e) => JSON.stringify(e));
  await session.close();
  return result;
}

describe.each(stores)("following a live log (%s store)", (_name, makeStore) => {
  it("appends only the new lines each time; the stored bytes before them never change", async () => {
    const store = new WatchedStore(makeStore());
    const live = join(dir, "live.jsonl");
    await writeFile(live, lines(1, 3));
    const first = await read(live);
    expect(await importIntoStore(store, first)).toMatchObject({ status: "created", added: 3 });
    const id = first.header.id;
    expect(store.writes).toEqual([`importLog ${id}`]);
    let last = 3;
    for (let round = 0; round < 5; round++) {
      const before = await storedText(store, id);
      const grow = round + 1; // 1, 2, 3, 4, 5 new lines
      await appendFile(live, lines(last + 1, last + grow));
      last += grow;
      const grown = await read(live);
      expect(await importIntoStore(store, grown)).toEqual({ id, status: "updated", added: grow });
      const after = await storedText(store, id);
      expect(after.startsWith(before)).toBe(true);
      const added = after.slice(before.length).split("\n").filter(Boolean);
      expect(added).toEqual(grown.entries.slice(-grow).map((e) => JSON.stringify(e)));
      expect(await importIntoStore(store, grown)).toEqual({ id, status: "unchanged", added: 0 });
      expect(await storedText(store, id)).toBe(after);
    }
    // Never deleted, never stored again whole: only appended to.
    expect(store.writes).toEqual([`importLog ${id}`]);
    // The same as importing the whole file at once, header included.
    const fresh = makeStore("fresh");
    await importIntoStore(fresh, await read(live));
    expect(await entryLines(store, id)).toEqual(await entryLines(fresh, id));
    expect((await storedText(store, id)).split("\n")[0]).toBe(
      (await storedText(fresh, id)).split("\n")[0],
    );
    expect((await store.list()).sessions.map((s) => s.id)).toEqual([id]);
  });

  it("appends after a session the user only navigated in Arbor (a leaf pointer)", async () => {
    const store = new WatchedStore(makeStore());
    const live = join(dir, "nav.jsonl");
    await writeFile(live, lines(1, 4));
    const first = await read(live);
    await importIntoStore(store, first);
    const session = await store.open(first.header.id);
    await session.branch("u2");
    await session.close();
    const before = await storedText(store, first.header.id);
    await appendFile(live, lines(5, 6));
    const result = await importIntoStore(store, await read(live));
    expect(result).toMatchObject({ status: "updated", added: 2 });
    expect((await storedText(store, first.header.id)).startsWith(before)).toBe(true);
    expect(store.writes).toEqual([`importLog ${first.header.id}`]);
    const reopened = await store.open(first.header.id, { readOnly: true });
    expect(reopened.getLeafId()).toBe("u6");
    await reopened.close();
  });

  it("with dryRun, reports the lines it would append and writes nothing", async () => {
    const store = makeStore();
    const live = join(dir, "dry.jsonl");
    await writeFile(live, lines(1, 2));
    await importIntoStore(store, await read(live));
    const before = await storedText(store, "claude-code-s-live");
    await appendFile(live, lines(3, 5));
    expect(await importIntoStore(store, await read(live), { dryRun: true })).toMatchObject({
      status: "updated",
      added: 3,
    });
    expect(await storedText(store, "claude-code-s-live")).toBe(before);
  });

  it("rewrites a session whose torn last line is now complete through a spare copy", async () => {
    const store = new WatchedStore(makeStore());
    const live = join(dir, "torn.jsonl");
    await writeFile(live, `${lines(1, 3)}${ccLine(4).slice(0, 25)}`);
    const first = await read(live);
    expect(first.report.issues.at(-1)?.reason).toMatch(/^torn last line/);
    const id = first.header.id;
    await importIntoStore(store, first);
    await writeFile(live, lines(1, 6));
    const result = await importIntoStore(store, await read(live));
    expect(result).toEqual({ id, status: "updated", added: 3 });
    expect(store.writes).toEqual([
      `importLog ${id}`,
      `importLog ${spareCopyId(id)}`,
      `delete ${id}`,
      `importLog ${id}`,
      `delete ${spareCopyId(id)}`,
    ]);
    const fresh = makeStore("fresh");
    await importIntoStore(fresh, await read(live));
    expect(await entryLines(store, id)).toEqual(await entryLines(fresh, id));
  });

  it.each([
    ["storing the spare copy", "importLog spare"],
    ["deleting the old copy", "delete id"],
    ["storing the new copy", "importLog id"],
    ["deleting the spare copy", "delete spare"],
  ])(
    "a rewrite that dies %s leaves a whole copy, and the next import finishes it",
    async (_when, call) => {
      const inner = makeStore();
      const store = new WatchedStore(inner);
      const live = join(dir, `crash-${call.replace(" ", "-")}.jsonl`);
      await writeFile(live, `${lines(1, 3)}${ccLine(4).slice(0, 25)}`);
      const torn = await read(live);
      const id = torn.header.id;
      await importIntoStore(store, torn);
      const old = await entryLines(inner, id);
      await writeFile(live, lines(1, 5));
      const whole = await read(live);
      const fresh = makeStore("fresh");
      await importIntoStore(fresh, whole);
      const wanted = await entryLines(fresh, id);
      store.failOn = call.replace("spare", spareCopyId(id)).replace(/ id$/, ` ${id}`);
      await expect(importIntoStore(store, whole)).rejects.toThrow(`died at ${store.failOn}`);
      // Every stored copy is whole: the old session or the new one, under its id or the spare's.
      const copies: string[] = [];
      for (const copy of [id, spareCopyId(id)]) {
        const held = await entryLines(inner, copy).catch(() => undefined);
        if (held) copies.push(copy);
        if (held) expect([old, wanted]).toContainEqual(held);
      }
      expect(copies.length).toBeGreaterThan(0);
      // The spare never lists as a session of its own.
      const listed = (await inner.list()).sessions.map((s) => s.id);
      expect(listed).toEqual(copies.includes(id) ? [id] : []);
      expect(await importIntoStore(inner, whole)).toMatchObject({ id });
      expect((await inner.list()).sessions.map((s) => s.id)).toEqual([id]);
      expect(await entryLines(inner, id)).toEqual(wanted);
    },
  );

  it("rewrites (through the spare copy) when the stored shape refuses the append", async () => {
    // A stored entry waits for a parent the source only now gains: that id is taken, so
    // the append is refused whole and the session is rewritten instead.
    const store = new WatchedStore(makeStore());
    const live = join(dir, "shape.jsonl");
    await writeFile(live, lines(1, 2));
    const base = await read(live);
    const id = base.header.id;
    const orphan = { ...defined(base.entries[1]), id: "late-child", parentId: "late" };
    const first = { ...base, entries: [defined(base.entries[0]), orphan] };
    await importIntoStore(store, first);
    const parent = {
      ...defined(base.entries[0]),
      id: "late",
      parentId: defined(base.entries[0]).id,
    };
    const grown = { ...base, entries: [...first.entries, parent] };
    expect(await importIntoStore(store, grown)).toEqual({ id, status: "updated", added: 1 });
    expect(store.writes).toContain(`importLog ${spareCopyId(id)}`);
    expect(await entryLines(store, id)).toEqual(grown.entries.map((e) => JSON.stringify(e)));
    expect((await store.list()).sessions.map((s) => s.id)).toEqual([id]);
  });
});
