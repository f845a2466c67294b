import { runInProgress } from "../../errors/index.js";
import type { RunRecord } from "../run-record.js";
import type { IfBusy, RunRequestAncestry } from "../run-request.js";
import { CHANNELS, type ClusterDb, type StatementRunner } from "./cluster-db.js";
import { dbJson } from "./db-json.js";
import { RUN_COLUMNS, type RunRow, recordOfRow } from "./run-row.js";

/** A run admitted to the table: queued until an instance claims it. */
export interface AdmitRequest {
  record: RunRecord;
  /** What to run; stored so that any instance can execute it. */
  request: StoredRunRequest;
  ifBusy: IfBusy;
  /** Whether this instance takes the run at once when the session is free. */
  claimHere: boolean;
}

/** What a run executes, as the `runs` table keeps it. */
export interface StoredRunRequest {
  prompt: string;
  images?: readonly unknown[];
  command?: { name: string; args: string };
  ancestry?: RunRequestAncestry;
  fromEntry?: string;
}

/** A run this instance claimed: its record, what to run and the generation fencing it. */
export interface ClaimedRun {
  record: RunRecord;
  request: StoredRunRequest;
  generation: number;
}

/** What the heartbeat learnt of this instance's runs. */
export interface HeartbeatReport {
  /** Runs still ours, with a stop or abort asked on any instance (null: none). */
  held: Map<string, string | null>;
}

const UNIQUE_VIOLATION = "23505";

/**
 * The run table's decisions, each one statement or one short transaction: admission under
 * a row lock on the session, claims with `FOR UPDATE SKIP LOCKED` (one running run per
 * session is also a partial unique index), leases with heartbeats, and the reaping of runs
 * whose instance died.
 */
export class RunLedger {
  constructor(private readonly db: ClusterDb) {}

  private get s(): string {
    return this.db.schema;
  }

  /**
   * Admits a run: under a lock on the session's row, looks at the session's queued and
   * running runs and either refuses (409), queues behind them, or asks the running one to
   * abort and queues first. A run of a free session is taken by this instance at once when
   * `claimHere` (the instance that was asked runs it); otherwise it is stored `queued` and
   * any instance claims it.
   * @returns the stored record, and the claim when this instance took the run
   * @throws ApiError 409 `session_busy` when busy and `ifBusy` is `reject`
   */
  async admit({
    record,
    request,
    ifBusy,
    claimHere,
  }: AdmitRequest): Promise<{ record: RunRecord; claimed?: ClaimedRun }> {
    let claimed: ClaimedRun | undefined;
    const client = await this.db.pool.connect();
    try {
      await client.query("BEGIN");
      try {
        await client.query(`SELECT id FROM ${this.s}.sessions WHERE id = $1 FOR UPDATE`, [
          record.sessionId,
        ]);
        const { rows: active } = await client.query<{ id: string; status: string }>(
          `SELECT id, status FROM ${this.s}.runs
           WHERE session_id = $1 AND status IN ('queued', 'running') ORDER BY position`,
          [record.sessionId],
        );
        const running = active.find((run) => run.status === "running") ?? active[0];
        if (running && ifBusy === "reject") {
          throw runInProgress(record.sessionId, running.id, "run");
        }
        const first = running && ifBusy === "interrupt";
        if (!running && claimHere) {
          const { rows } = await client.query<RunRow>(
            `INSERT INTO ${this.s}.runs (id, session_id, tenant_id, agent, status, position, request,
               created_at, started_at, owner, generation, heartbeat_at, lease_expires)
             VALUES ($1, $2, $3, $4, 'running', nextval('${this.s}.run_positions'), $5, $6, now(),
               $7, 1, now(), now() + $8 * interval '1 millisecond')
             RETURNING ${RUN_COLUMNS}`,
            [
              record.id,
              record.sessionId,
              record.tenantId,
              record.agent,
              dbJson(request),
              record.createdAt,
              this.db.instanceId,
              this.db.leaseTtlMs,
            ],
          );
          const row = rows[0] as RunRow;
          claimed = { record: recordOfRow(row), request: row.request, generation: 1 };
        } else
          await client.query(
            `INSERT INTO ${this.s}.runs (id, session_id, tenant_id, agent, status, position, request, created_at)
           VALUES ($1, $2, $3, $4, 'queued',
             CASE WHEN $7 THEN coalesce((SELECT min(position) - 1 FROM ${this.s}.runs
               WHERE session_id = $2 AND status = 'queued'), nextval('${this.s}.run_positions'))
             ELSE nextval('${this.s}.run_positions') END, $5, $6)`,
            [
              record.id,
              record.sessionId,
              record.tenantId,
              record.agent,
              dbJson(request),
              record.createdAt,
              first,
            ],
          );
        if (first && running.status === "running") {
          await client.query(
            `UPDATE ${this.s}.runs SET control = 'abort' WHERE id = $1 AND status = 'running'`,
            [running.id],
          );
          await client.query("SELECT pg_notify($1, $2)", [
            CHANNELS.runControl,
            `${running.id}:abort`,
          ]);
        }
        if (!claimed)
          await client.query("SELECT pg_notify($1, $2)", [CHANNELS.runsQueued, record.sessionId]);
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw error;
      }
    } finally {
      client.release();
    }
    return claimed
      ? { record: claimed.record, claimed }
      : { record: { ...record, status: "queued" } };
  }

  /**
   * Claims the next run that may start: the first queued run of a session that has none
   * running, skipping rows another instance is claiming. Never the same run twice.
   * @returns the claimed run, or undefined when none may start
   */
  async claim(): Promise<ClaimedRun | undefined> {
    try {
      const { rows } = await this.db.pool.query<RunRow>(
        `WITH next AS (
           SELECT r.id FROM ${this.s}.runs r
           WHERE r.status = 'queued'
             AND NOT EXISTS (SELECT 1 FROM ${this.s}.runs x
               WHERE x.session_id = r.session_id AND x.status = 'running')
             AND NOT EXISTS (SELECT 1 FROM ${this.s}.runs y
               WHERE y.session_id = r.session_id AND y.status = 'queued' AND y.position < r.position)
           ORDER BY r.position LIMIT 1
           FOR UPDATE SKIP LOCKED)
         UPDATE ${this.s}.runs AS runs SET status = 'running', owner = $1,
           generation = runs.generation + 1, started_at = now(), heartbeat_at = now(),
           lease_expires = now() + $2 * interval '1 millisecond', control = NULL
         FROM next WHERE runs.id = next.id AND runs.status = 'queued'
         RETURNING ${RUN_COLUMNS.split(", ")
           .map((c) => `runs.${c}`)
           .join(", ")}`,
        [this.db.instanceId, this.db.leaseTtlMs],
      );
      const row = rows[0];
      if (!row) return undefined;
      return { record: recordOfRow(row), request: row.request, generation: Number(row.generation) };
    } catch (error) {
      // Another instance started a run of that session between our look and our write.
      if ((error as { code?: string }).code === UNIQUE_VIOLATION) return undefined;
      throw error;
    }
  }

  /**
   * Renews the lease of every run this instance executes (through `db`: a connection of
   * its own, so renewals never wait behind the pool's work).
   * @returns the runs still ours, with any stop or abort asked for them
   */
  async heartbeat(db: StatementRunner = this.db.pool): Promise<HeartbeatReport> {
    const { rows } = await db.query<{ id: string; control: string | null }>(
      `UPDATE ${this.s}.runs SET heartbeat_at = now(),
         lease_expires = now() + $2 * interval '1 millisecond'
       WHERE owner = $1 AND status = 'running' RETURNING id, control`,
      [this.db.instanceId, this.db.leaseTtlMs],
    );
    return { held: new Map(rows.map((row) => [row.id, row.control])) };
  }

  /**
   * Takes over every running run whose lease expired (its instance died or lost the
   * database): a new generation owned by this instance, so the dead one's writes are refused
   * and no other survivor takes it too. The caller keeps what can be kept, then ends it
   * with {@link RunLedger.interrupt}. Such a run is never executed again.
   */
  async takeExpired(): Promise<ClaimedRun[]> {
    const { rows } = await this.db.pool.query<RunRow>(
      `UPDATE ${this.s}.runs SET owner = $1, generation = generation + 1,
         heartbeat_at = now(), lease_expires = now() + $2 * interval '1 millisecond'
       WHERE status = 'running' AND lease_expires < now()
       RETURNING ${RUN_COLUMNS}`,
      [this.db.instanceId, this.db.leaseTtlMs],
    );
    return rows.map((row) => ({
      record: recordOfRow(row),
      request: row.request,
      generation: Number(row.generation),
    }));
  }

  /**
   * Marks a run taken over by {@link RunLedger.takeExpired} `interrupted` (fenced by the
   * generation taken), and tells watchers and claimers.
   * @returns false when the run was no longer ours
   */
  async interrupt(runId: string, generation: number): Promise<boolean> {
    const { rows } = await this.db.pool.query(
      `WITH dead AS (
         UPDATE ${this.s}.runs SET status = 'interrupted', ended_at = now(), owner = NULL,
           lease_expires = NULL,
           error = jsonb_build_object('code', 'interrupted', 'message',
             'the instance running this run stopped before it ended (its lease expired)')
         WHERE id = $1 AND generation = $2 AND status = 'running'
         RETURNING id, session_id, last_seq)
       SELECT id, pg_notify('${CHANNELS.runEvents}', id || ':' || last_seq),
         pg_notify('${CHANNELS.runsQueued}', session_id) FROM dead`,
      [runId, generation],
    );
    return rows.length > 0;
  }

  /**
   * Cancels a queued run (from any instance); a run already claimed is left alone.
   * @returns the cancelled record, or undefined when it was not queued
   */
  async cancelQueued(runId: string, why: string): Promise<RunRecord | undefined> {
    const { rows } = await this.db.pool.query<RunRow>(
      `WITH cancelled AS (
         UPDATE ${this.s}.runs SET status = 'cancelled', ended_at = now(),
           error = jsonb_build_object('code', 'cancelled', 'message', $2::text)
         WHERE id = $1 AND status = 'queued' RETURNING *)
       SELECT ${RUN_COLUMNS}, pg_notify('${CHANNELS.runEvents}', id || ':' || last_seq),
         pg_notify('${CHANNELS.runsQueued}', session_id) FROM cancelled`,
      [runId, why],
    );
    return rows[0] ? recordOfRow(rows[0]) : undefined;
  }

  /**
   * Asks the instance executing a run to stop or abort it: a column its heartbeat reads,
   * and a notification so it acts at once.
   * @returns false when the run is not running
   */
  async requestControl(runId: string, what: "stop" | "abort"): Promise<boolean> {
    const { rows } = await this.db.pool.query(
      `WITH asked AS (
         UPDATE ${this.s}.runs SET control = CASE WHEN control = 'abort' THEN control ELSE $2 END
         WHERE id = $1 AND status = 'running' RETURNING id)
       SELECT pg_notify('${CHANNELS.runControl}', id || ':' || $2) FROM asked`,
      [runId, what],
    );
    return rows.length > 0;
  }

  /** The tenant's session's queued or running run, on any instance. */
  async activeRunOf(sessionId: string, tenantId: string): Promise<string | undefined> {
    const { rows } = await this.db.pool.query<{ id: string }>(
      `SELECT id FROM ${this.s}.runs WHERE session_id = $1 AND tenant_id = $2
         AND status IN ('queued', 'running') ORDER BY status DESC, position LIMIT 1`,
      [sessionId, tenantId],
    );
    return rows[0]?.id;
  }
}
