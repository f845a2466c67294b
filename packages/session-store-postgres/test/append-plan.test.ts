import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { PostgresSessionStore } from "../src/index.js";
import { freshSchema, pgInfo } from "./helpers/stores.js";

const message = (i: number) => ({
  role: "user" as const,
  content: `question ${i} ${"x".repeat(200)}`,
  timestamp: 1_700_000_000_000 + i,
});

describe.skipIf(!pgInfo)("the append statement", () => {
  const plans: string[] = [];
  // auto_explain logs the plan of every statement, those inside functions too, to the client.
  const pool = new pg.Pool({
    connectionString: pgInfo?.connectionString,
    max: 2,
    options:
      "-c session_preload_libraries=auto_explain -c auto_explain.log_min_duration=0 " +
      "-c auto_explain.log_nested_statements=on -c client_min_messages=log",
  });
  pool.on("connect", (client) => client.on("notice", (notice) => plans.push(notice.message ?? "")));
  afterAll(() => pool.end());

  it("is one round trip per awaited append, and its plans stay on the indexes at any size", async () => {
    const store = await PostgresSessionStore.connect({ pool, schema: freshSchema("plan") });
    const session = await store.create({ cwd: "/plan" });
    const others = [await store.create({ cwd: "/plan" }), await store.create({ cwd: "/plan" })];
    // The first appends make the cached plans while the tables are nearly empty, the case
    // where a planner left to itself picks scans of whole tables: one session alone (the
    // one-entry function) and three at once (the group function).
    const together = async (from: number) => {
      for (let i = from; i < from + 5; i++)
        await Promise.all([session, ...others].map((s) => s.appendMessage(message(i))));
    };
    for (let i = 0; i < 10; i++) await session.appendMessage(message(i));
    await together(100);
    // Another session's 20,000 entries: a scan of the table would now cost what it shows.
    const big = await store.create({ cwd: "/plan" });
    await big.close();
    await pool.query(
      `INSERT INTO ${store.schema}.entries (session_id, seq, entry_id, parent_id, type, op_id, entry)
       SELECT $1, g, 'e' || g, NULL, 'message', 'op' || g, '{}'::json
       FROM generate_series(1, 20000) g`,
      [big.id],
    );
    const queries: unknown[] = [];
    const query = pool.query.bind(pool);
    pool.query = ((...args: Parameters<typeof query>) => {
      queries.push(args[0]);
      return query(...args);
    }) as typeof pool.query;
    plans.length = 0;
    for (let i = 10; i < 20; i++) await session.appendMessage(message(i));
    pool.query = query;
    expect(queries).toHaveLength(10);
    const lone = plans.filter((p) => p.includes(store.schema));
    const lookups = lone.filter((p) => p.includes("Query Text: EXISTS"));
    const updates = lone.filter((p) => p.includes(`UPDATE ${store.schema}.sessions`));
    const inserts = lone.filter((p) => p.includes(`INSERT INTO ${store.schema}.entries`));
    expect([lookups.length, updates.length, inserts.length]).toEqual([10, 10, 10]);
    for (const plan of lookups) expect(plan).toContain("Index Only Scan using entries_operation");
    for (const plan of updates) expect(plan).toContain("Index Scan using sessions_pkey");
    for (const plan of lone) expect(plan).not.toMatch(/Seq Scan on (entries|sessions)|Hash Join/);

    plans.length = 0;
    await together(200);
    // Sessions answered together append together (the first may still go alone).
    const grouped = plans.filter((p) => p.includes("unnest(session_ids"));
    expect(grouped.length).toBeGreaterThan(0);
    for (const plan of grouped) {
      expect(plan).toContain("Index Only Scan using entries_operation");
      expect(plan).toContain("Index Scan using sessions_pkey");
      expect(plan).not.toMatch(/Seq Scan on (entries|sessions)|Hash Join|Hash Anti Join/);
    }
    for (const s of [session, ...others]) await s.close();
    const reopened = await store.open(session.id, { readOnly: true });
    expect(reopened.buildSessionContext().messages).toHaveLength(30);
    await store.close();
  });
});
