import { afterAll, describe, expect, it } from "vitest";
import { MIGRATIONS, type PostgresSessionStore, runMigrations } from "../src/index.js";
import { freshSchema, pgInfo, storeOn } from "./helpers/stores.js";

describe.skipIf(!pgInfo)("schema migrations", () => {
  const stores: PostgresSessionStore[] = [];
  afterAll(async () => {
    for (const store of stores) await store.close();
  });

  it("are applied once when several instances start at the same moment", async () => {
    const schema = freshSchema("mig");
    const started = await Promise.all(Array.from({ length: 6 }, () => storeOn({ schema })));
    stores.push(...started);
    const [first, , , fourth, , sixth] = started as PostgresSessionStore[] &
      Record<0 | 3 | 5, PostgresSessionStore>;
    const { rows } = await first.pool.query(
      `SELECT version, name FROM "${schema}".migrations ORDER BY version`,
    );
    expect(rows).toEqual(MIGRATIONS.map((m) => ({ version: m.version, name: m.name })));
    // Every instance works on the one schema.
    const session = await fourth.create({ cwd: "/m" });
    await session.close();
    expect((await sixth.list()).sessions.map((s) => s.id)).toEqual([session.id]);
  });

  it("runs an app's own set beside the store's, once, in its own table", async () => {
    const store = await storeOn();
    stores.push(store);
    const schema = freshSchema("app");
    const set = {
      table: "app_migrations",
      lock: 0x6170702d74657374n,
      migrations: [
        { version: 1, name: "notes", sql: (s: string) => `CREATE TABLE ${s}.notes (id int)` },
        { version: 2, name: "more", sql: (s: string) => `ALTER TABLE ${s}.notes ADD x int` },
      ],
    };
    const applied = await Promise.all(
      Array.from({ length: 3 }, () => runMigrations(store.pool, `"${schema}"`, set)),
    );
    expect(applied.flat().sort()).toEqual([1, 2]);
    const { rows } = await store.pool.query(
      `SELECT version FROM "${schema}".app_migrations ORDER BY version`,
    );
    expect(rows).toEqual([{ version: 1 }, { version: 2 }]);
    for (const table of ["x; DROP TABLE y", "Migrations", "a.b", ""]) {
      await expect(runMigrations(store.pool, `"${schema}"`, { ...set, table })).rejects.toThrow(
        "not a plain identifier",
      );
    }
  });

  it("rejects bad options with a typed error naming the field", async () => {
    for (const [options, field] of [
      [{ schema: "Robert'); DROP TABLE x;--" }, "schema"],
      [{ leaseTtlMs: 5 }, "leaseTtlMs"],
      [{ connectionString: undefined }, "pool"],
    ] as const) {
      const error = await storeOn(options as never).catch((e: unknown) => e);
      expect((error as { code?: string }).code).toBe("invalid_query");
      expect((error as { field?: string }).field).toBe(field);
    }
  });

  it("never prunes a session a writer holds", async () => {
    const store = await storeOn();
    stores.push(store);
    const held = await store.create({ cwd: "/p", now: () => Date.parse("2020-01-01") });
    const idle = await store.create({ cwd: "/p", now: () => Date.parse("2020-01-01") });
    await idle.close();
    expect(await store.prune({ olderThan: new Date("2025-01-01") })).toBe(1);
    expect((await store.list()).sessions.map((s) => s.id)).toEqual([held.id]);
    await held.close();
  });
});
