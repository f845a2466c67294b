import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresSessionStore } from "../src/index.js";
import { freshSchema, pgInfo, storeOn } from "./helpers/stores.js";

const ask = (text: string) => ({ role: "user" as const, content: text, timestamp: Date.now() });

describe.skipIf(!pgInfo)("row-level security", () => {
  // Row-level security never binds a superuser (the tests' own role): the store connects as
  // an ordinary role that may create schemas.
  const role = `arbor_app_${process.pid}`;
  const admin = new pg.Pool({ connectionString: pgInfo?.connectionString, max: 1 });
  const url = new URL(pgInfo?.connectionString ?? "postgresql://x@localhost/postgres");
  url.username = role;
  const schema = freshSchema("rls");
  let store: PostgresSessionStore;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    await admin.query(`CREATE ROLE ${role} LOGIN`);
    await admin.query(`GRANT CREATE ON DATABASE postgres TO ${role}`);
    store = await PostgresSessionStore.connect({
      connectionString: url.toString(),
      schema,
      rowLevelSecurity: true,
    });
    for (const tenant of ["acme", "globex"]) {
      const session = await store.create({ cwd: "/r", tenant });
      await session.appendMessage(ask(`${tenant} secret`));
      await session.close();
      ids[tenant] = session.id;
    }
    const untenanted = await store.create({ cwd: "/r" });
    await untenanted.appendMessage(ask("no tenant"));
    await untenanted.close();
    ids[""] = untenanted.id;
  });
  afterAll(async () => {
    await store?.close();
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.query(`REVOKE CREATE ON DATABASE postgres FROM ${role}`);
    await admin.query(`DROP ROLE IF EXISTS ${role}`);
    await admin.end();
  });

  /** A query as a buggy caller would write it: no tenant filter, in a tenant's scope or none. */
  async function raw(tenant: string | undefined, sql: string, values: unknown[] = []) {
    const client = await store.pool.connect();
    try {
      await client.query("BEGIN");
      if (tenant !== undefined)
        await client.query("SELECT set_config('arbor.tenant', $1, true)", [`t:${tenant}`]);
      const { rows } = await client.query(sql, values);
      await client.query("COMMIT");
      return rows;
    } catch (error) {
      await client.query("ROLLBACK");
      throw error;
    } finally {
      client.release();
    }
  }

  it("lets a query without a tenant filter see only its own tenant's sessions and entries", async () => {
    for (const tenant of ["acme", "globex", ""]) {
      const sessions = await raw(tenant, `SELECT id, tenant FROM "${schema}".sessions`);
      expect(sessions).toEqual([{ id: ids[tenant], tenant }]);
      const entries = await raw(
        tenant,
        `SELECT DISTINCT session_id FROM "${schema}".entries WHERE type = 'message'`,
      );
      expect(entries).toEqual([{ session_id: ids[tenant] }]);
    }
    // Outside any tenant scope (the setting never set, or reset to "" after a transaction),
    // nothing is seen, not even the sessions without a tenant.
    expect(await raw(undefined, `SELECT id FROM "${schema}".sessions`)).toEqual([]);
    expect(await raw(undefined, `SELECT 1 FROM "${schema}".entries`)).toEqual([]);
    expect((await store.pool.query(`SELECT id FROM "${schema}".sessions`)).rows).toEqual([]);
  });

  it("keeps a tenant from changing or adding to another tenant's session", async () => {
    const updated = await raw(
      "acme",
      `UPDATE "${schema}".sessions SET name = 'pwned' WHERE id = $1 RETURNING id`,
      [ids.globex],
    );
    expect(updated).toEqual([]);
    expect(await raw("acme", `DELETE FROM "${schema}".entries RETURNING 1`)).toHaveLength(1);
    const insert = raw(
      "acme",
      `INSERT INTO "${schema}".entries (session_id, seq, entry_id, type, op_id, entry)
       VALUES ($1, 99, 'x', 'custom', 'op-x', '{}')`,
      [ids.globex],
    );
    await expect(insert).rejects.toMatchObject({ code: "42501" });
    const globex = await store.open(ids.globex ?? "", { tenant: "globex", readOnly: true });
    expect(globex.getTitle()).toBe("globex secret");
    expect(globex.buildSessionContext().messages).toHaveLength(1);
  });

  it("runs every store operation within the tenant", async () => {
    const session = await store.create({ cwd: "/r", tenant: "acme" });
    const first = await session.appendMessage(ask("first"));
    await Promise.all([session.appendMessage(ask("second")), session.setTitle("Acme plan")]);
    const forked = await session.fork(first);
    await session.close();
    await forked.close();
    const page = await store.list({ tenant: "acme", limit: 10 });
    expect(page.sessions.map((s) => s.title).sort()).toEqual(["Acme plan", "acme secret", "first"]);
    expect((await store.list({ tenant: "globex" })).sessions.map((s) => s.id)).toEqual([
      ids.globex,
    ]);
    await expect(store.open(session.id, { tenant: "globex" })).rejects.toMatchObject({
      code: "not_found",
    });
    const again = await store.open(session.id, { tenant: "acme" });
    expect(again.buildSessionContext().messages.map((m) => m.content)).toEqual(["first", "second"]);
    await again.close();
    await store.delete(forked.id, { tenant: "acme" });
    // The trigger deleting a session's entries runs within the tenant too: none are left.
    const { rows: left } = await admin.query(
      `SELECT count(*)::int AS n FROM "${schema}".entries WHERE session_id = $1`,
      [forked.id],
    );
    expect(left[0]?.n).toBe(0);
    expect(await store.prune({ olderThan: new Date("2000-01-01"), tenant: "acme" })).toBe(0);
    expect((await store.list({ tenant: "acme" })).sessions).toHaveLength(2);
  });

  it("refuses a role that row-level security would not bind, and a store not told it is on", async () => {
    const superuser = storeOn({ schema, rowLevelSecurity: true });
    await expect(superuser).rejects.toMatchObject({
      code: "invalid_query",
      field: "rowLevelSecurity",
    });
    await expect(superuser).rejects.toThrow(/superuser or has BYPASSRLS/);
    const unaware = PostgresSessionStore.connect({ connectionString: url.toString(), schema });
    await expect(unaware).rejects.toMatchObject({ field: "rowLevelSecurity" });
    await expect(unaware).rejects.toThrow(/row-level security on/);
  });
});
