/**
 * Test kit of `@arbor/session-store-postgres`: a throwaway PostgreSQL cluster from the
 * machine's server binaries (`initdb` into a temporary folder, `pg_ctl start` on a free
 * loopback port, as the `postgres` user when run as root), and the plan a test run follows
 * when the binaries are missing (skip with a note, or fail under `CI=true`).
 */
export {
  type ClusterInfo,
  type ClusterOptions,
  findPgBinaries,
  freePort,
  type PgBinaries,
  type PgBinaryPlaces,
  PgCluster,
  type PgPlan,
  pgPlan,
} from "./pg-cluster.js";
