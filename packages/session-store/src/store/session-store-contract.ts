import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { EntryNotFoundError, SessionLockedError, SessionReadOnlyError } from "../errors/index.js";
import { spareCopyId } from "../spare-copy.js";
import type { SessionStore } from "./session-store.js";
import { InvalidStoreQueryError, SessionNotFoundError } from "./store-errors.js";

/** The test functions of the runner the suite is registered with (vitest, node:test, …). */
export interface ContractRunner {
  describe(name: string, body: () => void): void;
  it(name: string, body: () => Promise<void>, timeoutMs?: number): void;
}

/** Names of the cases of {@link sessionStoreContract}, for exceptions. */
export type SessionStoreCase =
  | "round-trip"
  | "unknown-entries"
  | "torn-input"
  | "not-a-log"
  | "listing"
  | "pagination"
  | "tenants"
  | "long-names"
  | "awkward-strings"
  | "has"
  | "bad-queries"
  | "delete"
  | "fork"
  | "locking"
  | "titles"
  | "spare-copies"
  | "durability";

/** Makes stores of one backend for the contract suite. */
export interface SessionStoreFactory {
  /** An empty store. */
  fresh(): Promise<SessionStore>;
  /**
   * A second store on the same data, as another process would open it (for the
   * durability case). Default: the same store object.
   */
  same?(store: SessionStore): Promise<SessionStore>;
  /** Cases this backend skips, each with the reason (printed in the case's name). */
  exceptions?: Partial<Record<SessionStoreCase, string>>;
}

/** Message times rise through a run, so listings order by them (pi's last-activity rule). */
let messageClock = Date.parse("2026-01-01T00:00:00.000Z");
const nextMessageTime = () => {
  messageClock += 1000;
  return messageClock;
};
const user = (text: string) => ({
  role: "user" as const,
  content: text,
  timestamp: nextMessageTime(),
});
const assistant = (text: string) => ({
  role: "assistant" as const,
  content: [{ type: "text" as const, text }],
  provider: "openai",
  model: "gpt-test",
  stopReason: "stop",
  timestamp: nextMessageTime(),
});

/** A clock shared by every session of a case: strictly increasing, one second a call. */
function clock(start = Date.parse("2026-01-01T00:00:00.000Z")): () => number {
  let t = start;
  return () => (t += 1000);
}

const header = (id: string) =>
  `{"type":"session","version":3,"id":"${id}","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/imported"}`;
const line = (fields: Record<string, unknown>) => JSON.stringify(fields);

async function rejectsWith(
  promise: Promise<unknown>,
  check: (error: unknown) => boolean,
  what: string,
): Promise<unknown> {
  const error = await promise.then(
    () => assert.fail(`expected ${what}, but the call succeeded`),
    (e: unknown) => e,
  );
  assert.ok(check(error), `expected ${what}, got ${String(error)}`);
  return error;
}

/**
 * The behaviour every session store promises, checked through the public API: create,
 * open, list (newest first, cursor pages, tenants, filters), delete, fork, one writer at a
 * time, torn and unknown input, titles and durability. A backend that needs an exception
 * names the case and the reason in `factory.exceptions`.
 * @example
 * // in a vitest file, with `describe` and `it` from vitest and this function from
 * // `@arbor/session-store/test`:
 * sessionStoreContract({ describe, it }, "mine", { fresh: async () => new MyStore() });
 */
export function sessionStoreContract(
  runner: ContractRunner,
  name: string,
  factory: SessionStoreFactory,
): void {
  const { describe } = runner;
  const it = (id: SessionStoreCase, title: string, body: () => Promise<void>) => {
    const reason = factory.exceptions?.[id];
    if (reason) {
      runner.it(`${title} — skipped by this backend: ${reason}`, async () => {});
      return;
    }
    runner.it(title, async () => {
      const store = await factory.fresh();
      stores.push(store);
      try {
        await body.call(undefined);
      } finally {
        stores.pop();
        await store.close();
      }
    });
  };
  const stores: SessionStore[] = [];
  const current = () => stores.at(-1) as SessionStore;
  const same = async () => (factory.same ? factory.same(current()) : current());

  describe(`SessionStore contract: ${name}`, () => {
    it("round-trip", "creates, appends, closes and reopens a session by id", async () => {
      const store = current();
      const now = clock();
      const session = await store.create({ cwd: "/home/project", now });
      const a = await session.appendMessage(user("hello"));
      const b = await session.appendMessage(assistant("hi"));
      await session.branch(a);
      const c = await session.appendMessage(user("again"));
      await session.close();
      const again = await store.open(session.id, { now });
      assert.equal(again.id, session.id);
      assert.equal(again.getHeader().cwd, "/home/project");
      assert.deepEqual(again.getEntries(), session.getEntries());
      assert.deepEqual(
        again.getEntries().map((e) => e.id),
        [a, b, c],
      );
      assert.equal(again.getLeafId(), c);
      await again.branch(b);
      await again.close();
      const third = await store.open(session.id, { readOnly: true });
      assert.equal(third.getLeafId(), b, "the leaf moved by branch() survives a reopen");
      assert.deepEqual(third.buildSessionContext().model, {
        provider: "openai",
        modelId: "gpt-test",
      });
    });

    it(
      "unknown-entries",
      "keeps unknown entry types and fields through an import and a reopen",
      async () => {
        const store = current();
        const id = "0190a000-0000-7000-8000-00000000abcd";
        const text = [
          header(id).replace('"cwd"', '"futureHeaderField":{"a":[1,"x"]},"cwd"'),
          line({
            type: "message",
            id: "m1",
            parentId: null,
            timestamp: "2026-01-01T00:00:01.000Z",
            extra: { keep: true },
            message: { role: "user", content: 'hi ✓ \u2028 "quoted"', timestamp: 1, odd: 1.5e300 },
          }),
          line({
            type: "future_thing",
            id: "f1",
            parentId: "m1",
            timestamp: "2026-01-01T00:00:02.000Z",
            payload: { x: [1, 2, null], nested: { deep: "é" } },
          }),
          line({
            type: "custom",
            id: "c1",
            parentId: "f1",
            timestamp: "2026-01-01T00:00:03.000Z",
            customType: "plugin",
            data: { n: -0.25, big: 12345678901234 },
          }),
        ].join("\n");
        const imported = await store.importLog(`${text}\n`);
        assert.equal(imported.id, id);
        assert.deepEqual(imported.problems, []);
        const session = await store.open(id);
        assert.deepEqual(
          session.getEntries(),
          text
            .split("\n")
            .slice(1)
            .map((l) => JSON.parse(l)),
        );
        assert.deepEqual(
          session.getHeader(),
          JSON.parse(header(id).replace('"cwd"', '"futureHeaderField":{"a":[1,"x"]},"cwd"')),
        );
        assert.equal(session.getLeafId(), "c1");
        const added = await session.appendCustomEntry("later", { unknown: { field: true } });
        await session.close();
        const again = await store.open(id, { readOnly: true });
        assert.deepEqual(again.getEntries().slice(0, 3), session.getEntries().slice(0, 3));
        assert.deepEqual(again.getEntry(added), session.getEntry(added));
      },
    );

    it(
      "torn-input",
      "imports a log with a torn last line and broken middle lines, keeping every whole entry",
      async () => {
        const store = current();
        const id = "0190a000-0000-7000-8000-00000000beef";
        const m = (mid: string, parentId: string | null) =>
          line({
            type: "message",
            id: mid,
            parentId,
            timestamp: "2026-01-01T00:00:01.000Z",
            message: { role: "user", content: mid, timestamp: 1 },
          });
        const text = `${header(id)}\n${m("m1", null)}\nnot json\n${m("m2", "m1")}\n${m("m3", "m2").slice(0, 40)}`;
        const imported = await store.importLog(text);
        assert.deepEqual(
          imported.problems.map((p) => p.kind),
          ["invalid_json", "torn_tail"],
        );
        const session = await store.open(id);
        assert.deepEqual(
          session.getEntries().map((e) => e.id),
          ["m1", "m2"],
        );
        assert.deepEqual(session.problems, [], "what is stored is whole");
        const next = await session.appendMessage(user("next"));
        await session.close();
        const again = await store.open(id, { readOnly: true });
        assert.deepEqual(
          again.getEntries().map((e) => e.id),
          ["m1", "m2", next],
        );
      },
    );

    it(
      "not-a-log",
      "refuses to import text that is not a session log, storing nothing",
      async () => {
        const store = current();
        for (const text of [
          "hello\nworld\n",
          '{"type":"message","id":"x"}\n',
          "\u0000\u0001",
          "",
        ]) {
          const error = await rejectsWith(
            store.importLog(text),
            (e) => e instanceof Error && "code" in e,
            "a typed error",
          );
          assert.match(String((error as Error).message), /not an Arbor or pi session|no session/);
        }
        assert.deepEqual((await store.list()).sessions, []);
      },
    );

    it("listing", "lists newest change first with the facts of each session", async () => {
      const store = current();
      const now = clock();
      const ids: string[] = [];
      for (const [i, cwd] of ["/a", "/b", "/a"].entries()) {
        const s = await store.create({ cwd, now });
        await s.appendMessage(user(`question ${i} about ${cwd === "/a" ? "apples" : "bananas"}`));
        await s.appendMessage(assistant(`answer ${i}`));
        await s.close();
        ids.push(s.id);
        await sleep(15); // file stores order by mtime, whose clock ticks coarsely
      }
      const first = await store.open(ids[0] as string, { now });
      await first.appendMessage(user("a later question"));
      await first.close();
      const page = await store.list();
      assert.deepEqual(
        page.sessions.map((s) => s.id),
        [ids[0], ids[2], ids[1]],
      );
      assert.equal(page.nextCursor, undefined);
      const top = page.sessions[0];
      assert.ok(top);
      assert.equal(top.messageCount, 3);
      assert.equal(top.firstUserMessage, "question 0 about apples");
      assert.equal(top.title, "question 0 about apples");
      assert.equal(top.cwd, "/a");
      assert.equal(top.location, first.location);
      assert.ok(top.modified.getTime() >= top.created.getTime());
      const inA = await store.list({ cwd: "/a" });
      assert.deepEqual(
        inA.sessions.map((s) => s.id),
        [ids[0], ids[2]],
      );
      const bananas = await store.list({ search: "BANANA" });
      assert.deepEqual(
        bananas.sessions.map((s) => s.id),
        [ids[1]],
      );
      // Labels, titles and navigation are not activity: the order stays (pi's rule).
      const last = await store.open(ids[1] as string, { now });
      const firstEntry = last.getEntries()[0]?.id as string;
      await last.appendLabelChange(firstEntry, "bookmark");
      await last.setTitle("renamed");
      await last.branch(firstEntry);
      await last.close();
      assert.deepEqual(
        (await store.list()).sessions.map((s) => s.id),
        [ids[0], ids[2], ids[1]],
      );
      assert.deepEqual((await store.list({ search: "%" })).sessions, [], "search is literal text");
      assert.deepEqual((await store.list({ search: "_" })).sessions, [], "search is literal text");
    });

    it(
      "pagination",
      "pages through every session once, in order, with a stable cursor",
      async () => {
        const store = current();
        const now = clock();
        const made: string[] = [];
        for (let i = 0; i < 7; i++) {
          const s = await store.create({ cwd: "/p", now });
          await s.appendMessage(user(`m${i}`));
          await s.close();
          made.push(s.id);
          await sleep(15);
        }
        const seen: string[] = [];
        let cursor: string | undefined;
        let pages = 0;
        do {
          const page = await store.list({ limit: 3, ...(cursor ? { cursor } : {}) });
          seen.push(...page.sessions.map((s) => s.id));
          cursor = page.nextCursor;
          pages++;
          assert.ok(pages < 10, "pagination ends");
        } while (cursor);
        assert.deepEqual(seen, made.reverse());
        assert.equal(pages, 3);
      },
    );

    it("tenants", "keeps tenants apart: listing, opening, deleting and forking", async () => {
      const store = current();
      const a = await store.create({ cwd: "/t", tenant: "acme" });
      const aId = await a.appendMessage(user("acme secret"));
      await a.close();
      const b = await store.create({ cwd: "/t", tenant: "globex" });
      await b.close();
      const plain = await store.create({ cwd: "/t" });
      await plain.close();
      assert.deepEqual(
        (await store.list({ tenant: "acme" })).sessions.map((s) => s.id),
        [a.id],
      );
      assert.deepEqual(
        (await store.list({ tenant: "globex" })).sessions.map((s) => s.id),
        [b.id],
      );
      assert.deepEqual(
        (await store.list()).sessions.map((s) => s.id),
        [plain.id],
      );
      assert.deepEqual((await store.list({ tenant: "acme", search: "secret" })).sessions.length, 1);
      assert.deepEqual((await store.list({ tenant: "globex", search: "secret" })).sessions, []);
      for (const attempt of [
        () => store.open(a.id, { tenant: "globex" }),
        () => store.open(a.id, { tenant: "globex", readOnly: true }),
        () => store.open(a.id),
        () => store.delete(a.id, { tenant: "globex" }),
        () => store.fork(a.id, aId, { tenant: "globex" }),
        () => store.open(a.id, { tenant: "acme'; --" }),
      ]) {
        await rejectsWith(attempt(), SessionNotFoundError.isInstance, "SessionNotFoundError");
      }
      const mine = await store.open(a.id, { tenant: "acme", readOnly: true });
      assert.equal(mine.getEntries().length, 1);
      const fork = await store.fork(a.id, aId, { tenant: "acme" });
      await fork.close();
      assert.equal((await store.list({ tenant: "acme" })).sessions.length, 2);
      assert.equal((await store.list({ tenant: "globex" })).sessions.length, 1);
    });

    it(
      "awkward-strings",
      "keeps U+0000, lone surrogates and the private-use escape character exactly, everywhere",
      async () => {
        const store = current();
        const now = clock();
        // The NUL character, a lone high and a lone low surrogate, a pair kept whole, and the
        // private-use character a backend may escape with (escaped itself).
        const odd = "a\u0000b\ud800c\udc00d\ud83d\ude00e\ue000f\ue0000000g";
        const tenant = `t${odd}`;
        const session = await store.create({ cwd: `/w/${odd}`, tenant, now });
        const asked = await session.appendMessage(user(`question ${odd}`));
        await session.appendMessage(assistant(`answer ${odd}`));
        await session.appendLabelChange(asked, `label ${odd}`);
        await session.setTitle(`title ${odd}`);
        const entries = session.getEntries();
        await session.close();
        const again = await store.open(session.id, { tenant, now });
        assert.equal(again.getHeader().cwd, `/w/${odd}`);
        assert.deepEqual(again.getEntries(), entries);
        assert.equal(again.getLabel(asked), `label ${odd}`);
        await again.close();
        const listed = (await store.list({ tenant })).sessions;
        assert.equal(listed.length, 1);
        assert.equal(listed[0]?.cwd, `/w/${odd}`);
        assert.equal(listed[0]?.title, `title ${odd}`);
        assert.equal(listed[0]?.firstUserMessage, `question ${odd}`);
        assert.equal((await store.list({ tenant, cwd: `/w/${odd}` })).sessions.length, 1);
        assert.equal((await store.list({ tenant, search: `${odd}` })).sessions.length, 1);
        const fork = await store.fork(session.id, asked, { tenant });
        assert.equal(fork.getHeader().cwd, `/w/${odd}`);
        await fork.close();
      },
    );

    it(
      "long-names",
      "takes the longest tenants and working directories: 200 characters, 4,096, multibyte",
      async () => {
        const store = current();
        // Text that does not compress: a store may not count on it being repetitive.
        const alphabet = [..."aé中𝄞/-_.:bcdefghijklmnopqrstuvwxyz0123456789"];
        const mixed = (n: number, seed: number) => {
          let state = seed;
          return Array.from({ length: n }, () => {
            state = (state * 1103515245 + 12345) % 2147483648;
            return alphabet[state % alphabet.length];
          }).join("");
        };
        const tenants = ["t".repeat(200), mixed(200, 1), `${"t".repeat(199)}u`];
        const cwds = [`/${"c".repeat(4095)}`, `/${mixed(4095, 2)}`, `/${mixed(4095, 3)}`];
        const made: Array<{ id: string; tenant: string; cwd: string }> = [];
        for (const [i, tenant] of tenants.entries()) {
          const cwd = cwds[i] as string;
          const session = await store.create({ cwd, tenant });
          await session.appendMessage(user(`hello ${i}`));
          await session.close();
          made.push({ id: session.id, tenant, cwd });
        }
        for (const { id, tenant, cwd } of made) {
          const page = await store.list({ tenant, cwd });
          assert.deepEqual(
            page.sessions.map((s) => s.id),
            [id],
          );
          assert.equal(page.sessions[0]?.cwd, cwd);
          assert.equal(await store.has(id, { tenant }), true);
          const opened = await store.open(id, { tenant, readOnly: true });
          assert.equal(opened.getHeader().cwd, cwd);
          await opened.close();
          for (const other of tenants.filter((t) => t !== tenant))
            assert.equal(await store.has(id, { tenant: other }), false);
        }
      },
    );

    it("has", "tells whether a session is there, per tenant, without opening it", async () => {
      const store = current();
      const a = await store.create({ cwd: "/h", tenant: "acme" });
      await a.appendMessage(user("hello"));
      const plain = await store.create({ cwd: "/h" });
      await plain.appendMessage(user("hello"));
      await plain.close();
      // Held by its writer, still there.
      assert.equal(await store.has(a.id, { tenant: "acme" }), true);
      await a.close();
      assert.equal(await store.has(a.id, { tenant: "acme" }), true);
      assert.equal(await store.has(plain.id), true);
      for (const [id, tenant] of [
        [a.id, "globex"],
        [a.id, undefined],
        [plain.id, "acme"],
        [a.id, "acme'; --"],
        ["01a00000-0000-7000-8000-000000000000", "acme"],
        ["", undefined],
        ["../x", undefined],
        [`../${plain.id}`, undefined],
        ["a/b", undefined],
        ["a\\b", undefined],
        ["a\u0000b", undefined],
        ["x".repeat(5000), undefined],
      ] as const) {
        assert.equal(await store.has(id, tenant === undefined ? {} : { tenant }), false, id);
      }
      await rejectsWith(
        store.has(a.id, { tenant: "x".repeat(201) }),
        InvalidStoreQueryError.isInstance,
        "InvalidStoreQueryError",
      );
      await store.delete(a.id, { tenant: "acme" });
      assert.equal(await store.has(a.id, { tenant: "acme" }), false);
    });

    it(
      "bad-queries",
      "rejects bad list queries and ids with a typed error naming the field",
      async () => {
        const store = current();
        const cases: [Parameters<SessionStore["list"]>[0], string][] = [
          [{ limit: 0 }, "limit"],
          [{ limit: 1.5 }, "limit"],
          [{ limit: 100_000 }, "limit"],
          [{ cursor: "not a cursor" }, "cursor"],
          [{ cursor: Buffer.from('{"modified":"x","id":1}').toString("base64url") }, "cursor"],
          [{ tenant: "" }, "tenant"],
          [{ bogus: 1 } as never, "bogus"],
        ];
        for (const [query, field] of cases) {
          const error = await rejectsWith(
            store.list(query),
            InvalidStoreQueryError.isInstance,
            "InvalidStoreQueryError",
          );
          assert.equal((error as InvalidStoreQueryError).field, field);
          assert.equal((error as InvalidStoreQueryError).code, "invalid_query");
        }
        for (const id of ["nope", "../../etc/passwd", "", "x'; drop table sessions; --"]) {
          await rejectsWith(
            store.open(id),
            SessionNotFoundError.isInstance,
            "SessionNotFoundError",
          );
          await rejectsWith(
            store.delete(id),
            SessionNotFoundError.isInstance,
            "SessionNotFoundError",
          );
        }
      },
    );

    it("delete", "deletes a session and its entries, but not while a writer holds it", async () => {
      const store = current();
      const s = await store.create({ cwd: "/d" });
      await s.appendMessage(user("to delete"));
      await rejectsWith(store.delete(s.id), SessionLockedError.isInstance, "SessionLockedError");
      await s.close();
      const keep = await store.create({ cwd: "/d" });
      await keep.appendMessage(user("keep me"));
      await keep.close();
      await store.delete(s.id);
      await rejectsWith(
        store.open(s.id, { readOnly: true }),
        SessionNotFoundError.isInstance,
        "SessionNotFoundError",
      );
      assert.deepEqual(
        (await store.list()).sessions.map((x) => x.id),
        [keep.id],
      );
      const kept = await store.open(keep.id, { readOnly: true });
      assert.equal(kept.getEntries().length, 1);
      const other = await store.open(keep.id);
      await other.delete();
      assert.deepEqual((await store.list()).sessions, []);
    });

    it(
      "fork",
      "forks a path into a new session of the same store with parentSession and labels",
      async () => {
        const store = current();
        const s = await store.create({ cwd: "/f" });
        const a = await s.appendMessage(user("one"));
        const b = await s.appendMessage(assistant("two"));
        await s.appendLabelChange(a, "start");
        await s.branch(a);
        await s.appendMessage(user("elsewhere"));
        await s.close();
        const fork = await store.fork(s.id, b);
        assert.notEqual(fork.id, s.id);
        assert.equal(fork.getHeader().parentSession, s.location);
        assert.deepEqual(
          fork.getBranch(b).map((e) => e.id),
          [a, b],
        );
        assert.equal(fork.getLabel(a), "start");
        await fork.appendMessage(user("continued"));
        await fork.close();
        const listed = (await store.list()).sessions.find((x) => x.id === fork.id);
        assert.equal(listed?.parentSession, s.location);
        assert.equal(listed?.messageCount, 3);
        await rejectsWith(
          store.fork(s.id, "missing"),
          EntryNotFoundError.isInstance,
          "EntryNotFoundError",
        );
      },
    );

    it("locking", "lets one writer in at a time and never blocks readers", async () => {
      const store = current();
      const writer = await store.create({ cwd: "/l" });
      await writer.appendMessage(user("mine"));
      const other = await same();
      await rejectsWith(other.open(writer.id), SessionLockedError.isInstance, "SessionLockedError");
      const reader = await other.open(writer.id, { readOnly: true });
      assert.equal(reader.getEntries().length, 1);
      assert.throws(() => reader.appendMessage(user("no")), SessionReadOnlyError);
      await writer.close();
      const next = await other.open(writer.id);
      await next.appendMessage(user("my turn"));
      await next.close();
      if (other !== store) await other.close();
    });

    it(
      "spare-copies",
      "never lists the spare copy of a session being rewritten, yet opens and deletes it by id",
      async () => {
        const store = current();
        const id = "0190a000-0000-7000-8000-00000000cafe";
        const spare = spareCopyId(id);
        const m = line({
          type: "message",
          id: "m1",
          parentId: null,
          timestamp: "2026-01-01T00:00:01.000Z",
          message: { role: "user", content: "kept", timestamp: 1 },
        });
        await store.importLog(`${header(id)}\n${m}\n`);
        await store.importLog(`${header(spare)}\n${m}\n`);
        assert.deepEqual(
          (await store.list()).sessions.map((s) => s.id),
          [id],
        );
        assert.deepEqual(
          (await store.list({ search: "kept", cwd: "/imported", limit: 1 })).sessions.map(
            (s) => s.id,
          ),
          [id],
          "filters and pages leave it out too",
        );
        const copy = await store.open(spare, { readOnly: true });
        assert.deepEqual(
          copy.getEntries().map((e) => e.id),
          ["m1"],
        );
        await copy.close();
        await store.delete(spare);
        await rejectsWith(store.open(spare), SessionNotFoundError.isInstance, "not found");
      },
    );

    it("titles", "shows titles set through the opened session in the listing", async () => {
      const store = current();
      const s = await store.create({ cwd: "/t" });
      await s.appendMessage(user("  Please   refactor the\nsession store  "));
      assert.equal((await store.list()).sessions[0]?.title, "Please refactor the session store");
      await s.setTitle("  Faster store ");
      const listed = (await store.list()).sessions[0];
      assert.equal(listed?.title, "Faster store");
      assert.equal(listed?.name, "Faster store");
      await s.clearTitle();
      assert.equal((await store.list()).sessions[0]?.title, "Please refactor the session store");
      assert.equal((await store.list()).sessions[0]?.name, undefined);
      await s.close();
    });

    it(
      "durability",
      "shows every acknowledged append to another store on the same data",
      async () => {
        const store = current();
        const s = await store.create({ cwd: "/dur" });
        const ids = await Promise.all(
          Array.from({ length: 20 }, (_, i) => s.appendMessage(user(`m${i}`))),
        );
        const other = await same();
        const seen = await other.open(s.id, { readOnly: true });
        assert.deepEqual(
          seen.getEntries().map((e) => e.id),
          ids,
        );
        assert.equal(seen.getLeafId(), ids.at(-1));
        assert.equal((await other.list()).sessions[0]?.messageCount, 20);
        await s.close();
        if (other !== store) await other.close();
      },
    );
  });
}
