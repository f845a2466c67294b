import { describe, expect, it } from "vitest";
import { readSessionSql } from "../src/postgres-storage.js";
import { pgInfo, storeOn } from "./helpers/stores.js";

describe.skipIf(!pgInfo)("reading a long PostgreSQL session", () => {
  it("hands back every entry in append order across chunks, with others' rows interleaved on disk", async () => {
    const store = await storeOn();
    const sessions = await Promise.all(
      Array.from({ length: 3 }, (_, s) => store.create({ cwd: `/order${s}` })),
    );
    // Three sessions appending at once interleave their rows in the heap; 700 entries each
    // span three chunks of the read, the last one partial.
    for (let i = 0; i < 700; i += 50) {
      await Promise.all(
        sessions.map((session, s) =>
          Promise.all(
            Array.from({ length: 50 }, (_, j) =>
              session.appendMessage({ role: "user", content: `s${s} m${i + j}`, timestamp: i + j }),
            ),
          ),
        ),
      );
    }
    for (const session of sessions) await session.close();
    for (const [s, session] of sessions.entries()) {
      const reopened = await store.open(session.id, { readOnly: true });
      const texts = reopened
        .buildSessionContext()
        .messages.map((message) => ("content" in message ? message.content : undefined));
      expect(texts).toEqual(Array.from({ length: 700 }, (_, i) => `s${s} m${i}`));
      await reopened.close();
    }
    await store.close();
  });
});

describe.skipIf(!pgInfo)("the read's plan", () => {
  it("is priced under jit_above_cost for a session of 20,000 entries, and reads them all", async () => {
    const store = await storeOn();
    const session = await store.create({ cwd: "/jit" });
    await session.appendMessage({ role: "user", content: "m0", timestamp: 0 });
    await session.close();
    const schema = store.schema;
    // Rows as the append functions write them, in one statement (20,000 awaited appends
    // would take the test ten seconds).
    await store.pool.query(
      `INSERT INTO ${schema}.entries (session_id, seq, entry_id, parent_id, type, op_id, entry)
       SELECT $1, g, 'x' || g, CASE WHEN g = 2 THEN (SELECT entry_id FROM ${schema}.entries
                                                    WHERE session_id = $1 AND seq = 1)
                                    ELSE 'x' || (g - 1) END, 'message', 'bulk#' || g,
              json_build_object('type', 'message', 'id', 'x' || g, 'parentId',
                CASE WHEN g = 2 THEN (SELECT entry_id FROM ${schema}.entries
                                      WHERE session_id = $1 AND seq = 1)
                     ELSE 'x' || (g - 1) END,
                'timestamp', '2026-01-01T00:00:00.000Z',
                'message', json_build_object('role', 'user', 'content', 'm' || g, 'timestamp', g))
       FROM generate_series(2, 20001) g`,
      [session.id],
    );
    await store.pool.query(
      `UPDATE ${schema}.sessions SET next_seq = 20002, leaf_id = 'x20001' WHERE id = $1`,
      [session.id],
    );
    await store.pool.query(`ANALYZE ${schema}.entries`);
    for (const sorted of [false, true]) {
      const { rows } = await store.pool.query({
        text: `EXPLAIN (FORMAT JSON) ${readSessionSql(schema, sorted)}`,
        values: [session.id, ""],
      });
      const plan = (rows[0] as { "QUERY PLAN": Array<{ Plan: { "Total Cost": number } }> })[
        "QUERY PLAN"
      ][0]?.Plan;
      const { rows: setting } = await store.pool.query("SHOW jit_above_cost");
      expect(plan?.["Total Cost"]).toBeLessThan(Number(setting[0].jit_above_cost));
    }
    const reopened = await store.open(session.id, { readOnly: true });
    expect(reopened.buildSessionContext().messages).toHaveLength(20_001);
    await reopened.close();
    await store.close();
  });
});
