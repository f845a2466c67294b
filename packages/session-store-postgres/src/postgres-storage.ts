import { randomUUID } from "node:crypto";
import {
  SessionReadOnlyError,
  type SessionStorage,
  SessionStoreError,
  type StoredLog,
} from "@arbor/session-store";
import type pg from "pg";
import { runAppend } from "./append-statement.js";
import { batchRows, lineOperationId } from "./batch-rows.js";
import {
  DatabaseUnavailableError,
  DuplicateEntryError,
  isConnectionError,
  SessionLeaseLostError,
} from "./errors.js";
import type { GroupAppender } from "./group-append.js";
import {
  acquireLease,
  type LeaseHolder,
  type LeaseTarget,
  releaseLease,
  renewLease,
} from "./lease.js";
import { assembleChunks } from "./read-chunks.js";
import { inTenantScope, type Queryable, setTenant } from "./tenant-scope.js";

/** What a storage shares with its store: the pool, the schema and the policies. */
export interface StorageContext {
  pool: pg.Pool;
  /** The quoted schema name. */
  schema: string;
  leaseTtlMs: number;
  retryForMs: number;
  titleLength: number;
  host: string;
  /** Appends of the store's sessions, grouped into shared statements. */
  appender: GroupAppender;
  /** Whether each statement runs in a transaction that sets the tenant (row-level security). */
  rowLevelSecurity: boolean;
}

interface Pending {
  lines: readonly string[];
  opId: string;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * One session's log in PostgreSQL: the header in its `sessions` row, each line an
 * `entries` row. Writers hold a lease with a fencing token (renewed while open, and by every
 * append); appends made together go out as one statement; an append lost to a dropped
 * connection is retried under the same operation ids, so it is stored once.
 */
export class PostgresSessionStorage implements SessionStorage {
  readonly location: string;
  private readonly target: LeaseTarget;
  private readonly who: LeaseHolder;
  private token: string | undefined;
  private renewTimer: NodeJS.Timeout | undefined;
  private lost: SessionStoreError | undefined;
  private queue: Pending[] = [];
  private draining = false;
  /** Whether the session's row has its first user message (then batches need not look). */
  private firstUserKnown = false;

  constructor(
    private readonly context: StorageContext,
    readonly sessionId: string,
    readonly tenant: string,
    private readonly mode: { create: boolean },
  ) {
    this.location = `postgres:${sessionId}`;
    this.target = {
      schema: context.schema,
      sessionId,
      tenant,
      location: this.location,
      leaseTtlMs: context.leaseTtlMs,
    };
    this.who = { holder: randomUUID(), pid: process.pid, host: context.host };
  }

  /** The fencing token of the lease held, if any. */
  get leaseToken(): string | undefined {
    return this.token;
  }

  /**
   * {@inheritDoc SessionStorage.read}
   * One statement, so one snapshot and one round trip: the header (chunk -1), then the
   * entries in chunks of 256 sequence numbers, each chunk one value read by a range scan
   * of the primary key (a few dozen large protocol messages cost the driver far less than
   * one per entry, and no sort of the whole session can spill to disk). The text goes to
   * the session as the driver decoded it: rows hold whole lines, so nothing is torn.
   */
  async read(): Promise<StoredLog | undefined> {
    const fast = await this.readChunks(false);
    // The fast query relies on the ordered subquery feeding the aggregate in order (what
    // PostgreSQL does); each chunk carries its sequence numbers, so a chunk that arrives in
    // any other order is caught here, and the session is read again with the sort spelled out.
    const log = fast === undefined || fast.ordered ? fast : await this.readChunks(true);
    return log && { content: log.content, problems: [] };
  }

  /**
   * The header and the entries as one text. `sorted` spells the order out in each chunk's
   * aggregate (a sort per chunk); without it the chunk's rows come in index order from an
   * ordered subquery, which costs the server far less, and `ordered` says whether they did.
   */
  private async readChunks(
    sorted: boolean,
  ): Promise<{ content: string[]; ordered: boolean } | undefined> {
    const { rows } = await this.scoped((db) =>
      db.query<[string, string | null, string | null]>({
        text: readSessionSql(this.context.schema, sorted),
        values: [this.sessionId, this.tenant],
        rowMode: "array",
      }),
    );
    return assembleChunks(rows);
  }

  /** {@inheritDoc SessionStorage.lock} */
  async lock(): Promise<void> {
    if (this.token !== undefined) return;
    const outcome = await this.scoped((db) =>
      acquireLease(db, this.target, this.who, this.mode.create),
    );
    if (!outcome.ok) {
      throw new SessionStoreError("not_found", `no session at ${this.location}`);
    }
    this.token = outcome.token;
    this.lost = undefined;
    const every = Math.max(50, Math.floor(this.context.leaseTtlMs / 3));
    this.renewTimer = setInterval(() => void this.renew(), every);
    this.renewTimer.unref();
  }

  /**
   * {@inheritDoc SessionStorage.append}
   * @param options.operationId - makes the append idempotent: repeating it is a no-op
   */
  append(lines: readonly string[], options: { operationId?: string } = {}): Promise<void> {
    if (lines.length === 0 || lines.every((line) => line === "")) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.queue.push({ lines, opId: options.operationId ?? randomUUID(), resolve, reject });
      if (!this.draining) void this.drain();
    });
  }

  /** {@inheritDoc SessionStorage.replace} */
  async replace(lines: readonly string[]): Promise<void> {
    const token = this.requireLease();
    const [headerLine = "{}", ...rest] = lines;
    const header = JSON.parse(headerLine) as Record<string, unknown>;
    const created = Date.parse(String(header.timestamp));
    const client = await this.context.pool.connect();
    try {
      await client.query("BEGIN");
      if (this.context.rowLevelSecurity) await setTenant(client, this.tenant);
      const { rowCount } = await client.query(
        `UPDATE ${this.context.schema}.sessions SET header = $4::json, cwd = $5, created = $6,
           last_activity = NULL, parent_session = $7, next_seq = 1, message_count = 0, leaf_id = NULL,
           first_user_message = NULL, auto_title = NULL, name = NULL
         WHERE id = $1 AND lease_token = $2 AND lease_holder = $3`,
        [
          this.sessionId,
          token,
          this.who.holder,
          headerLine,
          typeof header.cwd === "string" ? header.cwd : "",
          Number.isNaN(created) ? new Date() : new Date(created),
          typeof header.parentSession === "string" ? header.parentSession : null,
        ],
      );
      if (!rowCount) throw this.loseLease("taken over or deleted before a rewrite");
      this.firstUserKnown = false;
      await client.query(`DELETE FROM ${this.context.schema}.entries WHERE session_id = $1`, [
        this.sessionId,
      ]);
      if (rest.length > 0) {
        const opId = randomUUID();
        const opIds = rest.map((_, i) => lineOperationId(opId, i));
        await this.write(client, rest, opIds, token);
      }
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw this.typed(error);
    } finally {
      client.release();
    }
  }

  /** {@inheritDoc SessionStorage.sibling} A new session row of the same tenant. */
  sibling(sessionId: string): PostgresSessionStorage {
    return new PostgresSessionStorage(this.context, sessionId, this.tenant, { create: true });
  }

  /** {@inheritDoc SessionStorage.close} */
  async close(): Promise<void> {
    if (this.renewTimer) clearInterval(this.renewTimer);
    this.renewTimer = undefined;
    const token = this.token;
    this.token = undefined;
    if (token !== undefined && !this.lost) {
      await this.scoped((db) => releaseLease(db, this.target, this.who, token)).catch(
        () => undefined,
      );
    }
  }

  /** {@inheritDoc SessionStorage.delete} */
  async delete(): Promise<void> {
    await this.close();
    await this.scoped((db) =>
      db.query(`DELETE FROM ${this.context.schema}.sessions WHERE id = $1 AND tenant = $2`, [
        this.sessionId,
        this.tenant,
      ]),
    );
  }

  /** Runs statements in this session's tenant scope (a transaction under row-level security). */
  private scoped<T>(work: (db: Queryable) => Promise<T>): Promise<T> {
    return inTenantScope(this.context.pool, this.context.rowLevelSecurity, this.tenant, work);
  }

  private requireLease(): string {
    if (this.lost) throw this.lost;
    if (this.token === undefined)
      throw new SessionReadOnlyError(`${this.location} is not locked for writing`);
    return this.token;
  }

  private async renew(): Promise<void> {
    const token = this.token;
    if (token === undefined || this.lost) return;
    try {
      const held = await this.scoped((db) => renewLease(db, this.target, this.who, token));
      if (!held && this.token === token) this.loseLease("another writer took it over");
    } catch {
      // A missed renewal is retried at the next tick; the append path fences for real.
    }
  }

  private loseLease(detail: string): SessionStoreError {
    if (this.renewTimer) clearInterval(this.renewTimer);
    this.renewTimer = undefined;
    this.lost ??= new SessionLeaseLostError(this.location, detail);
    return this.lost;
  }

  /** Writes queued appends in order; those queued while one batch is out go out together. */
  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue;
        this.queue = [];
        try {
          const token = this.requireLease();
          const lines: string[] = [];
          const opIds: string[] = [];
          for (const pending of batch) {
            for (const [i, line] of pending.lines.entries()) {
              lines.push(line);
              opIds.push(lineOperationId(pending.opId, i));
            }
          }
          await this.withRetry(() => this.write(undefined, lines, opIds, token));
          for (const pending of batch) pending.resolve();
        } catch (error) {
          // Fail-stop: once a write failed, later queued appends are not written after it.
          const typed = this.typed(error);
          for (const pending of [...batch, ...this.queue.splice(0)]) pending.reject(typed);
        }
      }
    } finally {
      this.draining = false;
    }
  }

  /** Writes through `client` (in its transaction) or, without one, with other sessions' appends. */
  private async write(
    client: pg.PoolClient | undefined,
    lines: readonly string[],
    opIds: readonly string[],
    token: string,
  ): Promise<void> {
    const rows = batchRows(lines, opIds, this.context.titleLength, {
      firstUserKnown: this.firstUserKnown,
    });
    const fence = {
      sessionId: this.sessionId,
      tenant: this.tenant,
      token,
      holder: this.who.holder,
      leaseTtlMs: this.context.leaseTtlMs,
    };
    const held = client
      ? (await runAppend(client, this.context.schema, fence, rows)).held
      : await this.context.appender.submit(fence, rows);
    if (!held) throw this.loseLease("another writer took it over, or the session was deleted");
    if (rows.firstUserMessage !== null) this.firstUserKnown = true;
  }

  /** Retries an idempotent write while the connection is what fails, up to `retryForMs`. */
  private async withRetry(write: () => Promise<void>): Promise<void> {
    const started = Date.now();
    let delay = 20;
    for (;;) {
      try {
        return await write();
      } catch (error) {
        if (!isConnectionError(error)) throw error;
        const waited = Date.now() - started;
        if (waited >= this.context.retryForMs) {
          throw new DatabaseUnavailableError(this.location, { cause: error, waitedMs: waited });
        }
        await new Promise((r) => setTimeout(r, delay));
        delay = Math.min(delay * 2, 500);
      }
    }
  }

  /** Maps driver errors to the store's typed errors. */
  private typed(error: unknown): unknown {
    if (SessionStoreError.isInstance(error)) return error;
    const pgError = error as { code?: string; constraint?: string; detail?: string };
    if (pgError?.code === "23505" && pgError.constraint === "entries_entry_id") {
      const id = /\(session_id, entry_id\)=\([^,]*, (.*)\)/.exec(pgError.detail ?? "")?.[1];
      return new DuplicateEntryError(this.location, id ? [id] : []);
    }
    if (isConnectionError(error))
      return new DatabaseUnavailableError(this.location, { cause: error, waitedMs: 0 });
    return error;
  }
}

/**
 * The read of a session in one statement, `$1` its id and `$2` its tenant: the header (chunk
 * -1), then the entries in chunks of 256 sequence numbers (see `PostgresSessionStorage.read`).
 *
 * The chunk numbers come from `unnest` over an array rather than from `generate_series`
 * directly: the planner takes a `generate_series` over a column for 1,000 rows, which priced
 * the read of a session of some thousand entries above `jit_above_cost`, and compiling it
 * took longer than the read (10,000 entries: 43 ms with the compilation against 24 ms
 * without). An array's `unnest` is taken for 10 rows.
 */
export function readSessionSql(schema: string, sorted: boolean): string {
  const chunk = sorted
    ? `SELECT string_agg(e.entry::text, E'\\n' ORDER BY e.seq) AS text, NULL AS seqs
         FROM ${schema}.entries e
         WHERE e.session_id = $1 AND e.seq >= k * 256 AND e.seq < (k + 1) * 256`
    : `SELECT string_agg(o.entry::text, E'\\n') AS text, string_agg(o.seq::text, ',') AS seqs
         FROM (SELECT e.entry, e.seq FROM ${schema}.entries e
               WHERE e.session_id = $1 AND e.seq >= k * 256 AND e.seq < (k + 1) * 256
               ORDER BY e.seq) o`;
  return `SELECT -1 AS chunk, s.header::text, NULL FROM ${schema}.sessions s
            WHERE s.id = $1 AND s.tenant = $2 AND s.header IS NOT NULL
          UNION ALL
          SELECT k, c.text, c.seqs
            FROM ${schema}.sessions s,
                 unnest(ARRAY(SELECT generate_series(0, (s.next_seq - 1) / 256))) AS k,
                 LATERAL (${chunk}) c
            WHERE s.id = $1 AND s.tenant = $2 AND s.header IS NOT NULL`;
}
