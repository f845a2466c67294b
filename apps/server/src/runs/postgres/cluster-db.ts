import type pg from "pg";

/** Where the server's run and key tables are, and who this instance is. */
export interface ClusterDb {
  /** The pool the server's statements go through. */
  pool: pg.Pool;
  /** The schema, quoted for SQL. */
  schema: string;
  /** This instance's id: the owner recorded on the runs it executes. */
  instanceId: string;
  /** How long a run's lease lasts without a heartbeat, in milliseconds. */
  leaseTtlMs: number;
}

/** Something that runs a statement: the pool, or a dedicated connection. */
export interface StatementRunner {
  query<R extends pg.QueryResultRow>(sql: string, params: unknown[]): Promise<pg.QueryResult<R>>;
}

/** The NOTIFY channels of the cluster; payloads carry ids only (always far under 8,000 bytes). */
export const CHANNELS = {
  /** `<runId>:<lastSeq>`: a run stored events or changed state. */
  runEvents: "arbor_run_events",
  /** `<runId>:stop|abort|answer`: asked of the instance executing the run. */
  runControl: "arbor_run_control",
  /** `<sessionId>`: a run was queued or a session became free; instances try to claim. */
  runsQueued: "arbor_runs_queued",
} as const;
