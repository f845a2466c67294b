/**
 * The append of many sessions as a PL/pgSQL function, created by migration 2.
 *
 * Why a function: the statement (unnest, CTEs, a window) took longer to plan than to run,
 * and a prepared statement is planned again on every call because its generic plan looks
 * dearer to the planner than a custom one. Inside the function the plan is made once per
 * connection (`plan_cache_mode = force_generic_plan` while it runs) and reused, so an append
 * costs one round trip, one execution and one commit. The plan is made once, often while
 * the tables are still small, so it is pinned to index lookups and nested loops (no scan
 * of a table, no hash of one), which is the right plan for a handful of rows per call at
 * any table size.
 *
 * Per session: rows whose operation id is stored are skipped; the rest are numbered after
 * the session's last entry and written only while that session's lease token and holder
 * are current. Sessions whose lease is not current get nothing written and are left out of
 * `held_ids`. A colliding entry id under a new operation id fails the whole call (unique
 * index `entries_entry_id`).
 */
export function appendFunctionSql(schema: string): string {
  return `
    CREATE OR REPLACE FUNCTION ${schema}.append_entries(
      session_ids text[], entry_ids text[], parent_ids text[], types text[], op_ids text[],
      entries text[], f_sessions text[], f_tokens bigint[], f_holders text[], f_leaves text[],
      f_first_users text[], f_auto_titles text[], f_name_sets boolean[], f_names text[],
      f_newest timestamptz[], lease_ttl_ms bigint,
      OUT held_ids text[], OUT inserted_count integer)
    LANGUAGE plpgsql
    SET plan_cache_mode = force_generic_plan
    SET enable_seqscan = off
    SET enable_hashjoin = off
    SET enable_mergejoin = off
    AS $fn$
    BEGIN
      WITH input AS (
        SELECT * FROM unnest(session_ids, entry_ids, parent_ids, types, op_ids, entries)
          WITH ORDINALITY AS t(session_id, entry_id, parent_id, type, op_id, entry, ord)
      ), fences AS (
        SELECT * FROM unnest(f_sessions, f_tokens, f_holders, f_leaves, f_first_users,
                             f_auto_titles, f_name_sets, f_names, f_newest)
          AS f(session_id, token, holder, leaf_id, first_user, auto_title, name_set, name, newest)
      ), fresh AS (
        SELECT input.* FROM input
        WHERE NOT EXISTS (SELECT 1 FROM ${schema}.entries e
                          WHERE e.session_id = input.session_id AND e.op_id = input.op_id)
      ), counts AS (
        SELECT f.session_id, count(fr.ord)::bigint AS n,
               (count(fr.ord) FILTER (WHERE fr.type = 'message'))::integer AS messages
        FROM fences f LEFT JOIN fresh fr ON fr.session_id = f.session_id
        GROUP BY f.session_id
      ), held AS (
        UPDATE ${schema}.sessions s SET
          next_seq = s.next_seq + c.n,
          message_count = s.message_count + c.messages,
          leaf_id = CASE WHEN c.n > 0 THEN f.leaf_id ELSE s.leaf_id END,
          first_user_message = coalesce(s.first_user_message, f.first_user),
          auto_title = coalesce(s.auto_title, f.auto_title),
          name = CASE WHEN f.name_set AND c.n > 0 THEN nullif(f.name, '') ELSE s.name END,
          last_activity = greatest(s.last_activity, f.newest),
          lease_expires = now() + lease_ttl_ms * interval '1 millisecond'
        FROM fences f JOIN counts c ON c.session_id = f.session_id
        WHERE s.id = f.session_id AND s.lease_token = f.token AND s.lease_holder = f.holder
        RETURNING s.id, s.next_seq - c.n AS base
      ), inserted AS (
        INSERT INTO ${schema}.entries (session_id, seq, entry_id, parent_id, type, op_id, entry)
        SELECT fr.session_id,
               h.base + row_number() OVER (PARTITION BY fr.session_id ORDER BY fr.ord) - 1,
               fr.entry_id, fr.parent_id, fr.type, fr.op_id, fr.entry::json
        FROM fresh fr JOIN held h ON h.id = fr.session_id
        ON CONFLICT (session_id, op_id) DO NOTHING
        RETURNING 1
      )
      SELECT coalesce((SELECT array_agg(id) FROM held), '{}'),
             (SELECT count(*) FROM inserted)::integer
      INTO held_ids, inserted_count;
    END
    $fn$`;
}

/**
 * The append of one entry to one session, the call every awaited append of a lone session
 * makes (migration 4). Same rules as `append_entries`, spelled as three plain statements on
 * scalar parameters: no arrays to encode and parse, no unnest, no window, which took a third
 * of the time of an awaited append on one session. Plans pinned as in `append_entries`.
 */
export function appendOneFunctionSql(schema: string): string {
  return `
    CREATE OR REPLACE FUNCTION ${schema}.append_entry(
      p_session text, p_entry_id text, p_parent_id text, p_type text, p_op_id text,
      p_entry text, p_token bigint, p_holder text, p_leaf text, p_first_user text,
      p_auto_title text, p_name_set boolean, p_name text, p_newest timestamptz,
      lease_ttl_ms bigint, OUT held boolean, OUT inserted integer)
    LANGUAGE plpgsql
    SET plan_cache_mode = force_generic_plan
    SET enable_seqscan = off
    AS $fn$
    DECLARE
      seq_at bigint;
    BEGIN
      inserted := 0;
      IF EXISTS (SELECT 1 FROM ${schema}.entries e
                 WHERE e.session_id = p_session AND e.op_id = p_op_id) THEN
        UPDATE ${schema}.sessions s
          SET lease_expires = now() + lease_ttl_ms * interval '1 millisecond'
          WHERE s.id = p_session AND s.lease_token = p_token AND s.lease_holder = p_holder;
        held := FOUND;
        RETURN;
      END IF;
      UPDATE ${schema}.sessions s SET
        next_seq = s.next_seq + 1,
        message_count = s.message_count + (p_type = 'message')::integer,
        leaf_id = p_leaf,
        first_user_message = coalesce(s.first_user_message, p_first_user),
        auto_title = coalesce(s.auto_title, p_auto_title),
        name = CASE WHEN p_name_set THEN nullif(p_name, '') ELSE s.name END,
        last_activity = greatest(s.last_activity, p_newest),
        lease_expires = now() + lease_ttl_ms * interval '1 millisecond'
      WHERE s.id = p_session AND s.lease_token = p_token AND s.lease_holder = p_holder
      RETURNING s.next_seq - 1 INTO seq_at;
      held := FOUND;
      IF NOT held THEN
        RETURN;
      END IF;
      INSERT INTO ${schema}.entries (session_id, seq, entry_id, parent_id, type, op_id, entry)
        VALUES (p_session, seq_at, p_entry_id, p_parent_id, p_type, p_op_id, p_entry::json)
        ON CONFLICT (session_id, op_id) DO NOTHING;
      GET DIAGNOSTICS inserted = ROW_COUNT;
    END
    $fn$`;
}

/**
 * Entries without a foreign key to their session (migration 4): the key's check ran on
 * every inserted entry and cost a sixth of the appends' throughput over many sessions. The
 * append functions write an entry only in the statement that updates its session's row
 * under the writer's lease, so no entry can point at a missing session; deleting a session
 * deletes its entries in a trigger that runs before the row goes (under row-level security
 * the entries are visible only while their session is).
 */
export function entriesWithoutForeignKeySql(schema: string): string {
  return `
    DO $do$
    DECLARE
      fk text;
    BEGIN
      FOR fk IN SELECT conname FROM pg_constraint
                WHERE conrelid = '${schema}.entries'::regclass AND contype = 'f' LOOP
        EXECUTE format('ALTER TABLE ${schema}.entries DROP CONSTRAINT %I', fk);
      END LOOP;
    END
    $do$;
    CREATE FUNCTION ${schema}.delete_session_entries() RETURNS trigger
    LANGUAGE plpgsql AS $fn$
    BEGIN
      DELETE FROM ${schema}.entries WHERE session_id = OLD.id;
      RETURN OLD;
    END
    $fn$;
    CREATE TRIGGER sessions_delete_entries BEFORE DELETE ON ${schema}.sessions
      FOR EACH ROW EXECUTE FUNCTION ${schema}.delete_session_entries();
  `;
}
