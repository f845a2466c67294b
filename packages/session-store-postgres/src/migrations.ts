import type pg from "pg";
import {
  appendFunctionSql,
  appendOneFunctionSql,
  entriesWithoutForeignKeySql,
} from "./append-function.js";
import { tenantPoliciesSql } from "./row-level-security.js";

/** One step of the schema, applied once, in order, recorded in `<schema>.migrations`. */
export interface Migration {
  version: number;
  name: string;
  sql: (schema: string) => string;
}

/** Every migration, oldest first. Never edit one that shipped: add the next. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "sessions and entries",
    sql: (s) => `
      CREATE TABLE ${s}.sessions (
        id text PRIMARY KEY,
        tenant text NOT NULL DEFAULT '',
        cwd text NOT NULL DEFAULT '',
        name text,
        auto_title text,
        title text GENERATED ALWAYS AS (coalesce(name, auto_title)) STORED,
        created timestamptz NOT NULL,
        -- The last user or assistant message's time (pi's rule), else the creation time.
        last_activity timestamptz,
        modified timestamptz GENERATED ALWAYS AS (coalesce(last_activity, created)) STORED,
        message_count integer NOT NULL DEFAULT 0,
        first_user_message text,
        parent_session text,
        leaf_id text,
        header json,
        next_seq bigint NOT NULL DEFAULT 1,
        lease_holder text,
        lease_pid integer,
        lease_host text,
        lease_token bigint NOT NULL DEFAULT 0,
        lease_expires timestamptz
      );
      CREATE INDEX sessions_newest ON ${s}.sessions (tenant, modified DESC, id DESC)
        WHERE header IS NOT NULL;
      CREATE INDEX sessions_newest_by_cwd ON ${s}.sessions (tenant, cwd, modified DESC, id DESC)
        WHERE header IS NOT NULL;
      CREATE TABLE ${s}.entries (
        session_id text NOT NULL REFERENCES ${s}.sessions (id) ON DELETE CASCADE,
        seq bigint NOT NULL,
        entry_id text NOT NULL,
        parent_id text,
        type text NOT NULL,
        op_id text NOT NULL,
        entry json NOT NULL,
        PRIMARY KEY (session_id, seq),
        CONSTRAINT entries_operation UNIQUE (session_id, op_id)
      );
      -- Leaf pointers are not entries of the tree; their ids only need to be unique per line.
      CREATE UNIQUE INDEX entries_entry_id ON ${s}.entries (session_id, entry_id)
        WHERE type <> 'leaf';
    `,
  },
  {
    version: 2,
    name: "append function",
    sql: appendFunctionSql,
  },
  {
    version: 3,
    name: "tenant policies",
    sql: tenantPoliciesSql,
  },
  {
    version: 4,
    name: "one-entry append, entries deleted with their session by a trigger",
    sql: (s) => `${appendOneFunctionSql(s)};\n${entriesWithoutForeignKeySql(s)}`,
  },
  {
    version: 5,
    name: "listing by cwd indexed on the cwd's hash",
    // A btree entry holds at most 2,704 bytes: a long working directory (4,096 characters
    // that do not compress) failed every create. The list query matches the hash, then cwd.
    sql: (s) => `
      DROP INDEX ${s}.sessions_newest_by_cwd;
      CREATE INDEX sessions_newest_by_cwd
        ON ${s}.sessions (tenant, md5(cwd), modified DESC, id DESC) WHERE header IS NOT NULL;
    `,
  },
];

/** A fixed advisory lock key: "arbor-ss" as bytes, so instances starting together queue. */
const MIGRATION_LOCK = 0x6172626f722d7373n;

/**
 * Brings a schema up to date. Instances starting at once take an advisory lock, so each
 * migration runs once; each runs in its own transaction with its record.
 * @returns the versions this call applied
 */
export function applyMigrations(pool: pg.Pool, schema: string): Promise<number[]> {
  return runMigrations(pool, schema, {
    table: "migrations",
    lock: MIGRATION_LOCK,
    migrations: MIGRATIONS,
  });
}

/** A set of migrations kept in a table of its own: the store's, or an app's beside it. */
export interface MigrationSet {
  /** The table (in the schema) that records the applied versions; a plain identifier. */
  table: string;
  /** The advisory lock key instances applying this set queue on; one per set. */
  lock: bigint;
  /** Oldest first. */
  migrations: readonly Migration[];
}

/**
 * Applies the versions of `set` not yet recorded in its table, in order. Instances starting
 * at once queue on the set's advisory lock (held on one pooled connection for these few
 * statements, then released), so each migration runs once, in its own transaction with its
 * record. Apps that keep tables beside the store's (the server's runs and keys) use it too.
 * @returns the versions this call applied
 */
export async function runMigrations(
  pool: pg.Pool,
  schema: string,
  set: MigrationSet,
): Promise<number[]> {
  if (!/^[a-z_][a-z0-9_]*$/.test(set.table)) {
    throw new TypeError(`migration table "${set.table}" is not a plain identifier`);
  }
  const client = await pool.connect();
  const applied: number[] = [];
  try {
    await client.query("SELECT pg_advisory_lock($1)", [set.lock.toString()]);
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${schema}.${set.table} (
           version integer PRIMARY KEY, name text NOT NULL,
           applied_at timestamptz NOT NULL DEFAULT now())`,
      );
      const { rows } = await client.query<{ version: number }>(
        `SELECT version FROM ${schema}.${set.table}`,
      );
      const done = new Set(rows.map((row) => row.version));
      for (const migration of set.migrations) {
        if (done.has(migration.version)) continue;
        await client.query("BEGIN");
        try {
          await client.query(migration.sql(schema));
          await client.query(`INSERT INTO ${schema}.${set.table} (version, name) VALUES ($1, $2)`, [
            migration.version,
            migration.name,
          ]);
          await client.query("COMMIT");
        } catch (error) {
          await client.query("ROLLBACK");
          throw error;
        }
        applied.push(migration.version);
      }
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [set.lock.toString()]);
    }
  } finally {
    client.release();
  }
  return applied;
}
