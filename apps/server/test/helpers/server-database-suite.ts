import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { applyServerMigrations } from "../../src/runs/postgres/server-migrations.js";
import { failUnderCi, findPgBindir, PgCluster } from "./pg-cluster.js";

/** What {@link serverDatabaseSuite} gives a suite once its `beforeAll` ran. */
export interface ServerDatabaseSuite {
  /** Whether PostgreSQL can run here (else only the other backends are tried). */
  readonly available: boolean;
  /** A fresh temporary folder, removed after the suite. */
  readonly dir: string;
  /** A pool on a throwaway cluster with the server's tables in schema `arbor`. */
  readonly pool: pg.Pool;
  /** How to connect to that cluster (a `LISTEN` connection, a session store). */
  readonly connectionString: string;
}

/**
 * For a contract suite over the memory, file and PostgreSQL backends: a temporary folder and,
 * where the binaries are, a throwaway cluster with the server's tables, both removed after.
 */
export function serverDatabaseSuite(suite: string, prefix: string): ServerDatabaseSuite {
  const bindir = findPgBindir();
  failUnderCi(bindir ? undefined : "initdb, pg_ctl and postgres not found", suite);
  let dir = "";
  let cluster: PgCluster | undefined;
  let pool: pg.Pool | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
    if (!bindir) return;
    cluster = await PgCluster.start(bindir);
    pool = new pg.Pool({ connectionString: cluster.connectionString, max: 4 });
    await applyServerMigrations(pool, "arbor");
  }, 60_000);
  afterAll(async () => {
    await pool?.end();
    await cluster?.destroy();
    await rm(dir, { recursive: true, force: true });
  });
  return {
    available: bindir !== undefined,
    get dir() {
      return dir;
    },
    get pool() {
      if (!pool) throw new Error("no PostgreSQL cluster in this run");
      return pool;
    },
    get connectionString() {
      if (!cluster) throw new Error("no PostgreSQL cluster in this run");
      return cluster.connectionString;
    },
  };
}
