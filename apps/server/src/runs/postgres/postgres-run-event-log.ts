import { DatabaseUnavailableError, isConnectionError } from "@arbor/session-store-postgres";
import type { RunEventLog } from "../run-event-log.js";
import { isTerminal, type RunRecord } from "../run-record.js";
import { RunWatchers } from "../run-watchers.js";
import type { ServerRunEvent } from "../server-run-event.js";
import { CHANNELS, type ClusterDb } from "./cluster-db.js";
import { dbJson } from "./db-json.js";
import { RunLeaseLostError } from "./run-lease-lost-error.js";
import { RUN_COLUMNS, type RunRow, recordOfRow } from "./run-row.js";

/**
 * Runs and their events in PostgreSQL (`runs`, `run_events (run_id, seq)`), shared by every
 * instance. An event is committed before it is announced: the announcement is a `NOTIFY`
 * sent by the same statement (delivered at commit) carrying the run id and last seq only,
 * turned into local watcher calls by {@link PostgresRunEventLog.announce}; {@link PostgresRunEventLog.poll}
 * is the backstop for a lost notification. Writes for a run this instance executes are
 * fenced by the generation it claimed, in the same statement: after its lease is lost
 * nothing more is written ({@link RunLeaseLostError}).
 */
export class PostgresRunEventLog implements RunEventLog {
  private readonly watchers = new RunWatchers();
  /** Watched runs: how many watchers, and the state last seen by polling. */
  private readonly watched = new Map<string, { count: number; seen: string }>();
  /** The generation this instance holds of each run it executes. */
  private readonly fences = new Map<string, number>();

  constructor(private readonly db: ClusterDb) {}

  /** Records that this instance executes a run under `generation`: its writes are fenced by it. */
  hold(runId: string, generation: number): void {
    this.fences.set(runId, generation);
  }

  /** Forgets a run this instance executed. */
  release(runId: string): void {
    this.fences.delete(runId);
  }

  /** {@inheritDoc RunEventLog.createRun} */
  async createRun(record: RunRecord): Promise<void> {
    const s = this.db.schema;
    await this.db.pool.query(
      `INSERT INTO ${s}.runs (id, session_id, tenant_id, agent, status, position, request, created_at)
       VALUES ($1, $2, $3, $4, $5, nextval('${s}.run_positions'), '{}', $6)`,
      [record.id, record.sessionId, record.tenantId, record.agent, record.status, record.createdAt],
    );
  }

  /** {@inheritDoc RunEventLog.getRun} */
  async getRun(runId: string): Promise<RunRecord | undefined> {
    const { rows } = await this.db.pool.query<RunRow>(
      `SELECT ${RUN_COLUMNS} FROM ${this.db.schema}.runs WHERE id = $1`,
      [runId],
    );
    return rows[0] ? recordOfRow(rows[0]) : undefined;
  }

  /**
   * {@inheritDoc RunEventLog.updateRun}
   * @throws RunLeaseLostError when this instance executes the run and lost its lease
   */
  async updateRun(record: RunRecord): Promise<void> {
    const s = this.db.schema;
    const generation = this.fences.get(record.id);
    const ended = isTerminal(record.status);
    const { rows } = await this.retrying(`run "${record.id}"`, () =>
      this.db.pool.query(
        `WITH changed AS (
         UPDATE ${s}.runs SET status = $3, started_at = $4, ended_at = $5, result = $6,
           error = $7, last_seq = greatest(last_seq, $8),
           owner = CASE WHEN $9 THEN NULL ELSE owner END,
           lease_expires = CASE WHEN $9 THEN NULL ELSE lease_expires END
         WHERE id = $1 AND ($2::bigint IS NULL OR (generation = $2 AND status = 'running'))
           AND status IN ('queued', 'running')
         RETURNING id, session_id, last_seq)
       SELECT pg_notify('${CHANNELS.runEvents}', id || ':' || last_seq),
         pg_notify('${CHANNELS.runsQueued}', session_id) FROM changed`,
        [
          record.id,
          generation ?? null,
          record.status,
          record.startedAt ?? null,
          record.endedAt ?? null,
          record.result ? dbJson(record.result) : null,
          record.error ? dbJson(record.error) : null,
          record.lastSeq,
          ended,
        ],
      ),
    );
    if (rows.length === 0 && generation !== undefined)
      throw new RunLeaseLostError(record.id, generation);
    this.watchers.notify(record.id);
  }

  /**
   * {@inheritDoc RunEventLog.appendEvents}
   * @throws RunLeaseLostError when this instance lost the run's lease (nothing is stored)
   */
  async appendEvents(runId: string, events: readonly ServerRunEvent[]): Promise<void> {
    const last = events.at(-1);
    if (!last) return;
    const s = this.db.schema;
    const generation = this.fences.get(runId);
    // One statement, so one transaction: the fence (the run is still ours), the events and
    // the notification, which PostgreSQL delivers only once all of it is committed.
    // A retry after a lost acknowledgement finds its events stored: ON CONFLICT skips them.
    const { rows } = await this.retrying(`run "${runId}"`, () =>
      this.db.pool.query<{ stored: number }>(
        `WITH fence AS (
         UPDATE ${s}.runs SET last_seq = $3,
           -- A run that writes is alive: its lease lasts from its last write too.
           lease_expires = greatest(lease_expires, now() + $5 * interval '1 millisecond')
         WHERE id = $1 AND status = 'running' AND ($2::bigint IS NULL OR generation = $2)
         RETURNING id),
       stored AS (
         INSERT INTO ${s}.run_events (run_id, seq, event)
         SELECT fence.id, (e ->> 'seq')::bigint, e FROM fence, json_array_elements($4::json) AS e
         ON CONFLICT (run_id, seq) DO NOTHING
         RETURNING seq)
       SELECT (SELECT count(*) FROM stored)::int AS stored,
         pg_notify('${CHANNELS.runEvents}', $1 || ':' || $3) FROM fence`,
        [runId, generation ?? null, last.seq, dbJson(events), this.db.leaseTtlMs],
      ),
    );
    if (rows.length === 0) throw new RunLeaseLostError(runId, generation ?? 0);
    this.watchers.notify(runId);
  }

  /** {@inheritDoc RunEventLog.readEvents} */
  async readEvents(runId: string, afterSeq: number, limit = 1000): Promise<ServerRunEvent[]> {
    const { rows } = await this.db.pool.query<{ event: ServerRunEvent }>(
      `SELECT event FROM ${this.db.schema}.run_events WHERE run_id = $1 AND seq > $2
       ORDER BY seq LIMIT $3`,
      [runId, afterSeq, limit],
    );
    return rows.map((row) => row.event);
  }

  /** {@inheritDoc RunEventLog.watch} */
  watch(runId: string, listener: () => void): () => void {
    const entry = this.watched.get(runId) ?? { count: 0, seen: "" };
    entry.count++;
    this.watched.set(runId, entry);
    const stop = this.watchers.watch(runId, listener);
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      stop();
      entry.count--;
      if (entry.count === 0 && this.watched.get(runId) === entry) this.watched.delete(runId);
    };
  }

  /** Tells the local watchers of a run that it changed (a notification from any instance). */
  announce(runId: string): void {
    if (this.watched.has(runId)) this.watchers.notify(runId);
  }

  /** Tells every local watcher to look again (after the notification connection was lost). */
  announceAll(): void {
    for (const runId of this.watched.keys()) this.watchers.notify(runId);
  }

  /**
   * The backstop of notifications: reads the state of every watched run and wakes the
   * watchers of those that changed since the last poll.
   */
  async poll(): Promise<void> {
    const ids = [...this.watched.keys()];
    if (ids.length === 0) return;
    const { rows } = await this.db.pool.query<{ id: string; status: string; last_seq: string }>(
      `SELECT id, status, last_seq FROM ${this.db.schema}.runs WHERE id = ANY($1)`,
      [ids],
    );
    for (const row of rows) {
      const entry = this.watched.get(row.id);
      const seen = `${row.status}:${row.last_seq}`;
      if (!entry || entry.seen === seen) continue;
      entry.seen = seen;
      this.watchers.notify(row.id);
    }
  }

  /**
   * Removes the events of runs that ended before `olderThanMs` ago, keeping the runs; a
   * client resuming one of them gets a `resync`.
   * @returns how many runs lost their events
   */
  async prune(olderThanMs: number): Promise<number> {
    const s = this.db.schema;
    const { rows } = await this.db.pool.query<{ id: string }>(
      `WITH old AS (
         UPDATE ${s}.runs SET events_pruned_through = last_seq
         WHERE ended_at < now() - $1 * interval '1 millisecond' AND events_pruned_through < last_seq
         RETURNING id),
       gone AS (DELETE FROM ${s}.run_events WHERE run_id IN (SELECT id FROM old))
       SELECT id FROM old`,
      [olderThanMs],
    );
    return rows.length;
  }

  /**
   * Runs a write again while the database cannot be reached, for as long as a lease lasts
   * (after that the run is another instance's to interrupt, and the fence refuses the write).
   */
  private async retrying<T>(what: string, write: () => Promise<T>): Promise<T> {
    const started = Date.now();
    for (;;) {
      try {
        return await write();
      } catch (error) {
        const waited = Date.now() - started;
        if (!isConnectionError(error)) throw error;
        if (waited >= this.db.leaseTtlMs)
          throw new DatabaseUnavailableError(what, { cause: error, waitedMs: waited });
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  }

  /** {@inheritDoc RunEventLog.close} */
  async close(): Promise<void> {}
}
