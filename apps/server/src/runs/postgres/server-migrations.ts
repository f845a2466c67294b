import { type Migration, runMigrations } from "@arbor/session-store-postgres";
import type pg from "pg";

/**
 * The server's own tables: tenants, API keys, runs and their events. They live beside the
 * session store's tables (same schema) but are the server's: runs and keys are concepts of
 * the HTTP server, not of a session store, so the server owns and versions them.
 * Never edit one that shipped: add the next.
 */
export const SERVER_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "tenants, api keys, runs and run events",
    sql: (s) => `
      CREATE TABLE ${s}.tenants (
        id text PRIMARY KEY,
        name text NOT NULL,
        created_at timestamptz NOT NULL
      );
      CREATE TABLE ${s}.api_keys (
        id text PRIMARY KEY,
        tenant_id text NOT NULL REFERENCES ${s}.tenants (id),
        hash text NOT NULL UNIQUE,
        label text,
        created_at timestamptz NOT NULL,
        revoked_at timestamptz
      );
      CREATE INDEX api_keys_by_tenant ON ${s}.api_keys (tenant_id, created_at);
      CREATE SEQUENCE ${s}.run_positions;
      CREATE TABLE ${s}.runs (
        id text PRIMARY KEY,
        session_id text NOT NULL,
        tenant_id text NOT NULL,
        agent text NOT NULL,
        status text NOT NULL,
        -- The order queued runs of a session start in.
        position bigint NOT NULL,
        -- What to run (prompt, images): any instance may claim a queued run.
        request jsonb NOT NULL,
        created_at timestamptz NOT NULL,
        started_at timestamptz,
        ended_at timestamptz,
        last_seq bigint NOT NULL DEFAULT 0,
        events_pruned_through bigint NOT NULL DEFAULT 0,
        result jsonb,
        error jsonb,
        -- The lease of the executing instance, and the generation that fences its writes.
        owner text,
        generation bigint NOT NULL DEFAULT 0,
        heartbeat_at timestamptz,
        lease_expires timestamptz,
        -- A stop or abort asked on any instance, for the executing one.
        control text
      );
      CREATE UNIQUE INDEX runs_one_running_per_session ON ${s}.runs (session_id)
        WHERE status = 'running';
      CREATE INDEX runs_queued ON ${s}.runs (position) WHERE status = 'queued';
      CREATE INDEX runs_active_by_session ON ${s}.runs (session_id, position)
        WHERE status IN ('queued', 'running');
      CREATE INDEX runs_leases ON ${s}.runs (lease_expires) WHERE status = 'running';
      CREATE INDEX runs_ended ON ${s}.runs (ended_at) WHERE ended_at IS NOT NULL;
      CREATE TABLE ${s}.run_events (
        run_id text NOT NULL REFERENCES ${s}.runs (id) ON DELETE CASCADE,
        seq bigint NOT NULL,
        event json NOT NULL,
        PRIMARY KEY (run_id, seq)
      );
    `,
  },
  {
    version: 2,
    name: "answers to extension UI requests, for the executing instance",
    sql: (s) => `
      -- An answer received by any instance (up to 10,000 characters: more than a NOTIFY
      -- payload carries), taken by the instance executing the run, which writes the outcome.
      CREATE TABLE ${s}.run_ui_answers (
        id bigserial PRIMARY KEY,
        run_id text NOT NULL REFERENCES ${s}.runs (id) ON DELETE CASCADE,
        request_id text NOT NULL,
        answer jsonb NOT NULL,
        outcome jsonb,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX run_ui_answers_pending ON ${s}.run_ui_answers (run_id) WHERE outcome IS NULL;
    `,
  },
];

/** A fixed advisory lock key ("arbor-sv" as bytes), apart from the session store's. */
const SERVER_MIGRATION_LOCK = 0x6172626f722d7376n;

/**
 * Brings the server's tables up to date, through the store's migration runner with a table
 * and a lock of the server's own: instances starting at once queue, each migration runs once.
 * @returns the versions this call applied
 */
export function applyServerMigrations(pool: pg.Pool, schema: string): Promise<number[]> {
  return runMigrations(pool, schema, {
    table: "server_migrations",
    lock: SERVER_MIGRATION_LOCK,
    migrations: SERVER_MIGRATIONS,
  });
}
