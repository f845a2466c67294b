import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { MIGRATIONS, PostgresSessionStore, runMigrations } from "../src/index.js";
import { freshSchema, pgInfo, storeOn } from "./helpers/stores.js";

describe.skipIf(!pgInfo)("deleting sessions", () => {
  let store: PostgresSessionStore;
  afterAll(async () => {
    await store?.close();
  });
  const rows = async (id: string) => {
    const { rows } = await store.pool.query(
      `SELECT (SELECT count(*) FROM ${store.schema}.entries WHERE session_id = $1)::int AS entries,
              (SELECT count(*) FROM ${store.schema}.sessions WHERE id = $1)::int AS sessions`,
      [id],
    );
    return rows[0];
  };

  it("removes every entry row with the session, by store.delete, Session.delete and prune", async () => {
    store = await storeOn();
    const made = [];
    for (let i = 0; i < 3; i++) {
      const s = await store.create({ cwd: "/d", now: () => Date.parse("2020-01-01") });
      for (let j = 0; j < 5; j++)
        await s.appendMessage({
          role: "user",
          content: `m${j}`,
          timestamp: Date.parse("2020-01-01"),
        });
      await s.branch(s.getEntries()[0]?.id as string);
      made.push(s);
    }
    const keep = await store.create({ cwd: "/d" });
    await keep.appendMessage({ role: "user", content: "keep", timestamp: Date.now() });
    await keep.close();
    for (const s of made) expect(await rows(s.id)).toEqual({ entries: 6, sessions: 1 });

    const [a, b, c] = made as [(typeof made)[0], (typeof made)[0], (typeof made)[0]];
    await a.close();
    await store.delete(a.id);
    await b.delete();
    await c.close();
    expect(await store.prune({ olderThan: new Date("2021-01-01") })).toBe(1);
    for (const s of made) expect(await rows(s.id)).toEqual({ entries: 0, sessions: 0 });
    expect(await rows(keep.id)).toEqual({ entries: 1, sessions: 1 });
  });

  /** An entry appended through the one-entry function on `client`, in its open transaction. */
  const appendOn = (client: pg.PoolClient, sessionId: string, n: number) =>
    client.query<{ held: boolean }>(
      `SELECT held FROM ${store.schema}.append_entry($1, $2, NULL, 'custom', $3, $4, 7, 'w',
         $2, NULL, NULL, false, NULL, NULL, 60000)`,
      [sessionId, `x${n}`, `op${n}`, JSON.stringify({ type: "custom", id: `x${n}` })],
    );

  it("leaves no entry behind when an append and a delete race, whichever locks the row first", async () => {
    const sessionIds: string[] = [];
    for (let i = 0; i < 2; i++) {
      const s = await store.create({ cwd: "/race" });
      await s.close();
      // A writer of its own on the row (token 7, holder "w"), appending from a raw connection.
      await store.pool.query(
        `UPDATE ${store.schema}.sessions SET lease_token = 7, lease_holder = 'w'
           WHERE id = $1`,
        [s.id],
      );
      sessionIds.push(s.id);
    }
    const [appendFirst, deleteFirst] = sessionIds as [string, string];
    const writer = await store.pool.connect();
    const deleter = await store.pool.connect();
    try {
      // The append holds the row; the delete waits for it and then takes the new entry too.
      await writer.query("BEGIN");
      expect((await appendOn(writer, appendFirst, 1)).rows[0]?.held).toBe(true);
      const deleting = deleter.query(`DELETE FROM ${store.schema}.sessions WHERE id = $1`, [
        appendFirst,
      ]);
      await new Promise((resolve) => setTimeout(resolve, 100));
      await writer.query("COMMIT");
      expect((await deleting).rowCount).toBe(1);
      expect(await rows(appendFirst)).toEqual({ entries: 0, sessions: 0 });

      // The delete holds the row; the append waits, finds no session and writes nothing.
      await deleter.query("BEGIN");
      await deleter.query(`DELETE FROM ${store.schema}.sessions WHERE id = $1`, [deleteFirst]);
      const appending = appendOn(writer, deleteFirst, 2);
      await new Promise((resolve) => setTimeout(resolve, 100));
      await deleter.query("COMMIT");
      expect((await appending).rows[0]?.held).toBe(false);
      expect(await rows(deleteFirst)).toEqual({ entries: 0, sessions: 0 });
    } finally {
      writer.release();
      deleter.release();
    }
  });

  it("upgrades a schema whose entries had a foreign key: sessions read and delete as before", async () => {
    const pool = new pg.Pool({ connectionString: pgInfo?.connectionString, max: 2 });
    const schema = freshSchema("upgrade");
    try {
      // The schema as the first three migrations left it; the store's start brings it up to date.
      await runMigrations(pool, `"${schema}"`, {
        table: "migrations",
        lock: 77n,
        migrations: MIGRATIONS.filter((m) => m.version <= 3),
      });
      const foreignKeys = async () =>
        (
          await pool.query(
            `SELECT count(*)::int AS n FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'f'`,
            [`"${schema}".entries`],
          )
        ).rows[0]?.n;
      expect(await foreignKeys()).toBe(1);
      const old = await PostgresSessionStore.connect({ pool, schema });
      const session = await old.create({ cwd: "/old" });
      await session.appendMessage({ role: "user", content: "before", timestamp: 1 });
      await session.close();
      expect(await foreignKeys()).toBe(0);
      const { rows: versions } = await pool.query(
        `SELECT version FROM "${schema}".migrations ORDER BY version`,
      );
      expect(versions.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
      const again = await old.open(session.id);
      await again.appendMessage({ role: "user", content: "after", timestamp: 2 });
      expect(again.buildSessionContext().messages.map((m) => m.content)).toEqual([
        "before",
        "after",
      ]);
      await again.close();
      await old.delete(session.id);
      const { rows: left } = await pool.query(
        `SELECT count(*)::int AS n FROM "${schema}".entries WHERE session_id = $1`,
        [session.id],
      );
      expect(left[0]?.n).toBe(0);
      await old.close();
    } finally {
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool.end();
    }
  });
});
