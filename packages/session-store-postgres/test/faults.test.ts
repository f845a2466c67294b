import { SessionLockedError, SessionStoreError } from "@arbor/session-store";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DatabaseUnavailableError, PostgresSessionStore } from "../src/index.js";
import { PgCluster } from "../src/test/index.js";
import { startWriter } from "./helpers/child.js";
import { freshSchema, pgInfo } from "./helpers/stores.js";

const user = (text: string) => ({ role: "user" as const, content: text, timestamp: 1 });

// Production-like durability: a cluster of its own with fsync and synchronous_commit on.
describe.skipIf(!pgInfo)("faults, with fsync on", () => {
  let cluster: PgCluster;
  beforeAll(async () => {
    cluster = await PgCluster.start(pgInfo?.bindir as string, { fsync: true });
  });
  afterAll(async () => {
    await cluster?.destroy();
  });
  const connect = (options: Partial<Parameters<typeof PostgresSessionStore.connect>[0]> = {}) =>
    PostgresSessionStore.connect({
      connectionString: cluster.info.connectionString,
      schema: freshSchema("f"),
      ...options,
    });

  it("keeps every acknowledged append when the server crashes mid-stream; the rest fail typed, never hang", async () => {
    const schema = freshSchema("crash");
    const store = await connect({ schema, retryForMs: 1500 });
    const session = await store.create({ cwd: "/crash" });
    const acked: string[] = [];
    const failures: unknown[] = [];
    let stopping: Promise<void> | undefined;
    const started = Date.now();
    for (let i = 0; i < 400; i++) {
      if (i === 150) stopping = cluster.stop("immediate");
      try {
        acked.push(await session.appendMessage(user(`m${i}`)));
      } catch (error) {
        failures.push(error);
        break; // the session is fail-stop after a failed write
      }
    }
    await stopping;
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(failures).toHaveLength(1);
    const failure = failures[0];
    expect(DatabaseUnavailableError.isInstance(failure), String(failure)).toBe(true);
    expect((failure as SessionStoreError).code).toBe("database_unavailable");
    const later = await Promise.resolve()
      .then(() => session.appendMessage(user("after")))
      .catch((e: unknown) => e);
    expect(SessionStoreError.isInstance(later)).toBe(true);
    await session.close().catch(() => undefined);
    await store.close().catch(() => undefined);

    await cluster.restart();
    const again = await connect({ schema });
    const reopened = await again.open(session.id, { readOnly: true });
    const stored = reopened.getEntries().map((e) => e.id);
    expect(stored.slice(0, acked.length)).toEqual(acked);
    // At most the one unacknowledged append may have reached the disk before the crash.
    expect(stored.length - acked.length).toBeLessThanOrEqual(1);
    // The crashed writer's lease outlives the crash until it expires (15 s by default).
    const writer = await again.open(session.id).catch((e: unknown) => e);
    expect(SessionLockedError.isInstance(writer)).toBe(true);
    await again.close();
  });

  it("survives connections dropped mid-transaction: every append stored once, in order", async () => {
    const store = await connect({ retryForMs: 10_000 });
    const admin = new pg.Client(cluster.info.connectionString);
    await admin.connect();
    const session = await store.create({ cwd: "/drop" });
    let killing = true;
    let killed = 0;
    const ids: string[] = [];
    // Kills every other connection, then waits for the store to make progress (an append
    // acknowledged) before killing again: on a loaded machine a timed loop could kill every
    // retry before it commits.
    const killer = (async () => {
      while (killing) {
        const { rowCount } = await admin.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
           WHERE pid <> pg_backend_pid() AND datname = current_database() AND backend_type = 'client backend'`,
        );
        killed += rowCount ?? 0;
        const seen = ids.length;
        while (killing && ids.length === seen) await new Promise((r) => setTimeout(r, 5));
      }
    })();
    for (let i = 0; i < 150; i++) ids.push(await session.appendMessage(user(`d${i}`)));
    const burst = await Promise.all(
      Array.from({ length: 50 }, (_, i) => session.appendMessage(user(`b${i}`))),
    );
    ids.push(...burst);
    killing = false;
    await killer;
    await admin.end();
    expect(killed).toBeGreaterThan(0);
    await session.close();
    const reopened = await store.open(session.id, { readOnly: true });
    expect(reopened.getEntries().map((e) => e.id)).toEqual(ids);
    expect((await store.list()).sessions[0]?.messageCount).toBe(ids.length);
    await store.close();
  });

  it("runs four processes appending to 100 sessions at once without losing or mixing entries", async () => {
    const schema = freshSchema("four");
    const store = await connect({ schema });
    const ids: string[] = [];
    for (let i = 0; i < 100; i++) {
      const s = await store.create({ cwd: `/p${i % 7}` });
      await s.close();
      ids.push(s.id);
    }
    const appends = 30;
    const writers = [0, 1, 2, 3].map((k) =>
      startWriter({
        connectionString: cluster.info.connectionString,
        schema,
        sessionIds: ids.filter((_, i) => i % 4 === k),
        appends,
        maxConnections: 8,
      }),
    );
    for (const writer of writers) expect(await writer.next("done")).toEqual({ done: 25 * appends });
    for (const writer of writers) expect(await writer.exited).toBe(0);
    let pages = 0;
    let total = 0;
    let cursor: string | undefined;
    do {
      const page = await store.list({ limit: 30, ...(cursor ? { cursor } : {}) });
      for (const info of page.sessions) expect(info.messageCount).toBe(appends);
      total += page.sessions.length;
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(total).toBe(100);
    expect(pages).toBe(4);
    for (const id of ids.slice(0, 10)) {
      const s = await store.open(id, { readOnly: true });
      const entries = s.getEntries();
      expect(entries).toHaveLength(appends);
      // One chain: each entry's parent is the one before it.
      for (const [i, e] of entries.entries()) {
        expect(e.parentId).toBe(i === 0 ? null : entries[i - 1]?.id);
      }
      const writerPid = /from (\d+)/.exec(JSON.stringify(entries[0]))?.[1];
      expect(entries.every((e) => JSON.stringify(e).includes(`from ${writerPid} `))).toBe(true);
    }
    await store.close();
  });

  it("lets a new writer take over once a SIGKILLed holder's lease expires, keeping what it acknowledged", async () => {
    if (!pgInfo) return;
    const schema = freshSchema();
    const leaseTtlMs = 1000;
    const store = await connect({ schema, leaseTtlMs });
    const created = await store.create({ cwd: "/k" });
    await created.close();
    const holder = startWriter({
      connectionString: cluster.info.connectionString,
      schema,
      leaseTtlMs,
      sessionIds: [created.id],
      appends: 5,
      reportAcks: true,
      hold: true,
    });
    const { ready: pid } = await holder.next("ready");
    await holder.next("done");
    const acked = holder.events.filter((e) => "acked" in e).map((e) => (e.acked as string[])[1]);
    holder.child.kill("SIGKILL");
    await holder.exited;
    const killedAt = Date.now();
    const refused = await store.open(created.id).catch((e: unknown) => e);
    expect(SessionLockedError.isInstance(refused)).toBe(true);
    expect((refused as SessionLockedError).holderPid).toBe(pid);
    let session: Awaited<ReturnType<typeof store.open>> | undefined;
    while (!session) {
      session = await store.open(created.id).catch(() => undefined);
      if (!session) await new Promise((r) => setTimeout(r, 50));
      expect(Date.now() - killedAt).toBeLessThan(leaseTtlMs * 10);
    }
    expect(session.getEntries().map((e) => e.id)).toEqual(acked);
    await session.appendMessage(user("took over"));
    await session.close();
    await store.close();
  });

  it("lets exactly one of two processes open a session for writing", async () => {
    if (!pgInfo) return;
    const schema = freshSchema("two");
    const store = await connect({ schema });
    const created = await store.create({ cwd: "/two" });
    await created.close();
    const writers = [0, 1].map(() =>
      startWriter({
        connectionString: cluster.info.connectionString,
        schema,
        sessionIds: [created.id],
        appends: 3,
        hold: true,
      }),
    );
    const outcomes = await Promise.all(
      writers.map((w) => Promise.race([w.next("done"), w.next("error")])),
    );
    const winners = outcomes.filter((o) => "done" in o);
    const losers = outcomes.filter((o) => "error" in o);
    expect(winners).toHaveLength(1);
    expect(losers).toHaveLength(1);
    const winnerPid = writers.find((_, i) => "done" in (outcomes[i] as object))?.child.pid;
    expect(losers[0]).toMatchObject({ error: "session_locked", holderPid: winnerPid });
    for (const w of writers) w.child.kill("SIGKILL");
    const s = await store.open(created.id, { readOnly: true });
    expect(s.getEntries()).toHaveLength(3);
    await store.close();
  });
});
