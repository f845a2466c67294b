import type pg from "pg";
import { type BatchRows, sessionFacts } from "./batch-rows.js";

/**
 * Appends a batch in one statement (one round trip, one commit): rows whose operation id is
 * already stored are skipped, the sessions row is updated only while this writer's lease
 * token is current, and the entries are numbered after the session's last one.
 * A colliding entry id under a new operation id fails the whole statement (unique index).
 */
function appendSql(schema: string): string {
  return `
    WITH input AS (
      SELECT * FROM unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
        WITH ORDINALITY AS t(entry_id, parent_id, type, op_id, entry, ord)
    ), fresh AS (
      SELECT input.* FROM input
      WHERE NOT EXISTS (
        SELECT 1 FROM ${schema}.entries e WHERE e.session_id = $1 AND e.op_id = input.op_id)
    ), counts AS (
      SELECT count(*)::bigint AS n,
             (count(*) FILTER (WHERE type = 'message'))::integer AS messages
      FROM fresh
    ), held AS (
      UPDATE ${schema}.sessions s SET
        next_seq = s.next_seq + counts.n,
        message_count = s.message_count + counts.messages,
        leaf_id = CASE WHEN counts.n > 0 THEN $9 ELSE s.leaf_id END,
        first_user_message = coalesce(s.first_user_message, $10),
        auto_title = coalesce(s.auto_title, $11),
        name = CASE WHEN $12 AND counts.n > 0 THEN nullif($13, '') ELSE s.name END,
        last_activity = greatest(s.last_activity, $14),
        lease_expires = now() + $3 * interval '1 millisecond'
      FROM counts
      WHERE s.id = $1 AND s.lease_token = $2 AND s.lease_holder = $15
      RETURNING s.next_seq - counts.n AS base
    ), inserted AS (
      INSERT INTO ${schema}.entries (session_id, seq, entry_id, parent_id, type, op_id, entry)
      SELECT $1, held.base + row_number() OVER (ORDER BY fresh.ord) - 1,
             fresh.entry_id, fresh.parent_id, fresh.type, fresh.op_id, fresh.entry::json
      FROM held, fresh
      ON CONFLICT (session_id, op_id) DO NOTHING
      RETURNING 1
    )
    SELECT (SELECT count(*) FROM held)::integer AS held,
           (SELECT count(*) FROM inserted)::integer AS inserted`;
}

const cache = new Map<string, string>();

/** Who writes: the session, the lease token and holder the statement is fenced by. */
export interface AppendFence {
  sessionId: string;
  /** The session's tenant (`""` for none): appends are grouped by it under row-level security. */
  tenant: string;
  token: string;
  holder: string;
  leaseTtlMs: number;
}

/**
 * Runs the append statement for a batch.
 * @returns `held: false` when the lease was not this writer's any more (nothing was written)
 */
export async function runAppend(
  db: pg.Pool | pg.PoolClient,
  schema: string,
  fence: AppendFence,
  rows: BatchRows,
): Promise<{ held: boolean; inserted: number }> {
  let text = cache.get(schema);
  if (!text) {
    text = appendSql(schema);
    cache.set(schema, text);
  }
  const result = await db.query<{ held: number; inserted: number }>({
    name: `arbor-append-${schema}`,
    text,
    values: [
      fence.sessionId,
      fence.token,
      fence.leaseTtlMs,
      rows.entryIds,
      rows.parentIds,
      rows.types,
      rows.opIds,
      rows.entries,
      ...sessionFacts(rows),
      fence.holder,
    ],
  });
  const row = result.rows[0];
  return { held: (row?.held ?? 0) > 0, inserted: row?.inserted ?? 0 };
}
