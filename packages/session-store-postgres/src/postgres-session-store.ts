import { hostname } from "node:os";
import {
  type CreateStoredSessionOptions,
  CURRENT_SESSION_VERSION,
  checkTenant,
  DEFAULT_TITLE_LENGTH,
  decodeCursor,
  encodeCursor,
  forkLines,
  generateSessionId,
  type ImportedSession,
  InvalidStoreQueryError,
  importableLines,
  type OpenStoredSessionOptions,
  parseListQuery,
  Session,
  type SessionListQuery,
  SessionLockedError,
  SessionNotFoundError,
  type SessionPage,
  type SessionStore,
  SessionStoreError,
  SPARE_COPY_SUFFIX,
  type StoredSessionInfo,
} from "@arbor/session-store";
import pg from "pg";
import { GroupAppender } from "./group-append.js";
import { losslessPool } from "./lossless-text.js";
import { applyMigrations } from "./migrations.js";
import { type PostgresStoreOptions, postgresStoreOptionsSchema } from "./options.js";
import { PostgresSessionStorage, type StorageContext } from "./postgres-storage.js";
import { enableRowLevelSecurity } from "./row-level-security.js";
import { inTenantScope, type Queryable } from "./tenant-scope.js";

interface SessionRow {
  id: string;
  tenant: string;
  cwd: string;
  title: string | null;
  name: string | null;
  created: Date;
  modified: Date;
  message_count: number;
  first_user_message: string | null;
  parent_session: string | null;
}

/**
 * Sessions in PostgreSQL, shared by every process and machine on the database: an
 * indexed listing, one writer per session by lease (with a fencing token), idempotent
 * appends, and retention (`prune`).
 * @example
 * const store = await PostgresSessionStore.connect({ connectionString: "postgres://…" });
 * const session = await store.create({ cwd: "/repo", tenant: "acme" });
 * await session.appendMessage({ role: "user", content: "hi", timestamp: Date.now() });
 * await session.close();
 * await store.close();
 */
export class PostgresSessionStore implements SessionStore {
  private constructor(
    private readonly context: StorageContext,
    private readonly ownsPool: boolean,
  ) {}

  /**
   * Connects (a given pool or a connection string) and applies the schema migrations
   * (once, however many instances start together).
   * @throws InvalidStoreQueryError for bad options
   */
  static async connect(options: PostgresStoreOptions): Promise<PostgresSessionStore> {
    const parsed = postgresStoreOptionsSchema.safeParse(options);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new InvalidStoreQueryError(issue?.path.join(".") || "options", issue?.message ?? "");
    }
    const o = parsed.data;
    if (!o.pool === !o.connectionString) {
      throw new InvalidStoreQueryError("pool", "pass exactly one of pool and connectionString");
    }
    const pool =
      o.pool ?? new pg.Pool({ connectionString: o.connectionString, max: o.maxConnections });
    if (!o.pool) pool.on("error", () => undefined);
    const schema = `"${o.schema}"`;
    try {
      await applyMigrations(pool, schema);
      await enableRowLevelSecurity(pool, schema, o.rowLevelSecurity);
    } catch (error) {
      if (!o.pool) await pool.end();
      throw error;
    }
    const context: StorageContext = {
      pool: losslessPool(pool),
      schema,
      leaseTtlMs: o.leaseTtlMs,
      retryForMs: o.retryForMs,
      titleLength: o.titleLength ?? DEFAULT_TITLE_LENGTH,
      host: o.host ?? hostname(),
      appender: new GroupAppender(losslessPool(pool), schema, o.leaseTtlMs, o.rowLevelSecurity),
      rowLevelSecurity: o.rowLevelSecurity,
    };
    return new PostgresSessionStore(context, !o.pool);
  }

  /** The schema holding the store's tables, quoted for SQL. */
  get schema(): string {
    return this.context.schema;
  }

  /** The pool the store queries through. */
  get pool(): pg.Pool {
    return this.context.pool;
  }

  /** {@inheritDoc SessionStore.create} */
  async create(options: CreateStoredSessionOptions): Promise<Session> {
    const { tenant, ...rest } = options;
    const now = options.now ?? Date.now;
    const sessionId = generateSessionId(now());
    const storage = this.storage(sessionId, checkTenant(tenant), true);
    return Session.open(storage, {
      titleLength: this.context.titleLength,
      ...rest,
      create: true,
      sessionId,
    });
  }

  /** {@inheritDoc SessionStore.open} */
  async open(id: string, options: OpenStoredSessionOptions = {}): Promise<Session> {
    const { tenant, ...rest } = options;
    const storage = this.storage(id, checkTenant(tenant), false);
    try {
      return await Session.open(storage, { titleLength: this.context.titleLength, ...rest });
    } catch (error) {
      // A writer's lease query or the read found no session (of this tenant).
      if (SessionStoreError.isInstance(error) && error.code === "not_found")
        throw new SessionNotFoundError(id, tenant);
      throw error;
    }
  }

  /** {@inheritDoc SessionStore.has} One lookup by primary key. */
  async has(id: string, options: { tenant?: string } = {}): Promise<boolean> {
    const tenant = checkTenant(options.tenant) ?? "";
    if (id.length === 0 || id.includes("\u0000")) return false;
    const { rowCount } = await this.scoped(tenant, (db) =>
      db.query(
        `SELECT 1 FROM ${this.context.schema}.sessions
         WHERE id = $1 AND tenant = $2 AND header IS NOT NULL`,
        [id, tenant],
      ),
    );
    return (rowCount ?? 0) > 0;
  }

  /**
   * {@inheritDoc SessionStore.list}
   * One indexed query: `(tenant, modified, id)` (or with the cwd's hash) walked from the cursor.
   */
  async list(query: SessionListQuery = {}): Promise<SessionPage> {
    const q = parseListQuery(query);
    checkTenant(q.tenant);
    const values: unknown[] = [q.tenant ?? ""];
    // The spare copy of a session being rewritten is no session of its own.
    values.push(`%${SPARE_COPY_SUFFIX}`);
    const where = ["tenant = $1", "header IS NOT NULL", `id NOT LIKE $${values.length}`];
    if (q.cwd !== undefined) {
      values.push(q.cwd);
      // The index holds the cwd's hash (migration 5): a cwd may be longer than an index entry.
      where.push(`md5(cwd) = md5($${values.length}) AND cwd = $${values.length}`);
    }
    if (q.search) {
      values.push(`%${q.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
      const p = `$${values.length}`;
      where.push(`(title ILIKE ${p} OR name ILIKE ${p} OR first_user_message ILIKE ${p})`);
    }
    if (q.cursor !== undefined) {
      const cursor = decodeCursor(q.cursor);
      values.push(new Date(cursor.modified), cursor.id);
      where.push(`(modified, id) < ($${values.length - 1}, $${values.length})`);
    }
    values.push(q.limit + 1);
    const { rows } = await this.scoped(q.tenant ?? "", (db) =>
      db.query<SessionRow>(
        `SELECT id, tenant, cwd, title, name, created, modified, message_count,
              first_user_message, parent_session
       FROM ${this.context.schema}.sessions WHERE ${where.join(" AND ")}
       ORDER BY modified DESC, id DESC LIMIT $${values.length}`,
        values,
      ),
    );
    const sessions = rows.slice(0, q.limit).map((row) => this.info(row));
    const last = sessions.at(-1);
    return {
      sessions,
      nextCursor:
        rows.length > q.limit && last
          ? encodeCursor({ modified: last.modified.getTime(), id: last.id })
          : undefined,
    };
  }

  /** {@inheritDoc SessionStore.delete} */
  async delete(id: string, options: { tenant?: string } = {}): Promise<void> {
    const key = checkTenant(options.tenant) ?? "";
    const { rowCount, rows } = await this.scoped(key, async (db) => {
      const deleted = await db.query(
        `DELETE FROM ${this.context.schema}.sessions
         WHERE id = $1 AND tenant = $2 AND header IS NOT NULL
           AND (lease_holder IS NULL OR lease_expires < now())`,
        [id, key],
      );
      if (deleted.rowCount) return { rowCount: deleted.rowCount, rows: [] };
      const held = await db.query<{ pid: number | null }>(
        `SELECT lease_pid AS pid FROM ${this.context.schema}.sessions
         WHERE id = $1 AND tenant = $2 AND header IS NOT NULL`,
        [id, key],
      );
      return { rowCount: 0, rows: held.rows };
    });
    if (rowCount) return;
    if (!rows[0]) throw new SessionNotFoundError(id, options.tenant);
    throw new SessionLockedError(`postgres:${id}`, rows[0].pid ?? 0);
  }

  /** {@inheritDoc SessionStore.fork} */
  async fork(id: string, leafId: string, options: OpenStoredSessionOptions = {}): Promise<Session> {
    const source = await this.open(id, { ...options, readOnly: true });
    const now = options.now ?? Date.now;
    const sessionId = generateSessionId(now());
    const header = {
      type: "session" as const,
      version: CURRENT_SESSION_VERSION,
      id: sessionId,
      timestamp: new Date(now()).toISOString(),
      cwd: source.getHeader().cwd ?? "",
      parentSession: source.location,
    };
    const lines = forkLines(source, leafId, header, now);
    const storage = this.storage(sessionId, options.tenant, true);
    await storage.lock();
    await storage.replace(lines);
    const { tenant: _, readOnly: __, ...seams } = options;
    return Session.open(storage, { titleLength: this.context.titleLength, ...seams });
  }

  /** {@inheritDoc SessionStore.importLog} */
  async importLog(text: string, options: { tenant?: string } = {}): Promise<ImportedSession> {
    const tenant = checkTenant(options.tenant);
    const imported = await importableLines(text, "postgres:import");
    const id = imported.header.id;
    // Under row-level security only the tenant's sessions are seen: another tenant's session
    // of the same id makes the insert below fail instead.
    const { rowCount } = await this.scoped(tenant ?? "", (db) =>
      db.query(`SELECT 1 FROM ${this.context.schema}.sessions WHERE id = $1`, [id]),
    );
    if (rowCount)
      throw new InvalidStoreQueryError("text", `session "${id}" is already in the store`);
    const storage = this.storage(id, tenant, true);
    await storage.lock();
    try {
      await storage.replace(imported.lines);
    } finally {
      await storage.close();
    }
    return { id, problems: imported.problems };
  }

  /**
   * Deletes the sessions (and their entries) last changed before `olderThan`, except those
   * a writer holds.
   * @returns how many were deleted
   */
  async prune(options: { olderThan: Date; tenant?: string }): Promise<number> {
    if (!(options.olderThan instanceof Date) || Number.isNaN(options.olderThan.getTime()))
      throw new InvalidStoreQueryError("olderThan", "a valid Date");
    const tenant = checkTenant(options.tenant) ?? "";
    const { rowCount } = await this.scoped(tenant, (db) =>
      db.query(
        `DELETE FROM ${this.context.schema}.sessions
         WHERE tenant = $1 AND modified < $2 AND (lease_holder IS NULL OR lease_expires < now())`,
        [tenant, options.olderThan],
      ),
    );
    return rowCount ?? 0;
  }

  /**
   * The storage of one session, for callers below `Session`: appends with their own
   * operation ids (`storage.append(lines, { operationId })`), or `Session.open(storage)`.
   * Nothing is checked until it is used.
   */
  openStorage(id: string, options: { tenant?: string } = {}): PostgresSessionStorage {
    return this.storage(id, checkTenant(options.tenant), false);
  }

  /** {@inheritDoc SessionStore.close} */
  async close(): Promise<void> {
    if (this.ownsPool) await this.context.pool.end();
  }

  /** Runs statements in a tenant's scope (a transaction under row-level security). */
  private scoped<T>(tenant: string, work: (db: Queryable) => Promise<T>): Promise<T> {
    return inTenantScope(this.context.pool, this.context.rowLevelSecurity, tenant, work);
  }

  private storage(id: string, tenant: string | undefined, create: boolean): PostgresSessionStorage {
    return new PostgresSessionStorage(this.context, id, tenant ?? "", { create });
  }

  private info(row: SessionRow): StoredSessionInfo {
    return {
      id: row.id,
      location: `postgres:${row.id}`,
      tenant: row.tenant === "" ? undefined : row.tenant,
      title: row.title ?? undefined,
      name: row.name ?? undefined,
      cwd: row.cwd,
      created: row.created,
      modified: row.modified,
      messageCount: row.message_count,
      firstUserMessage: row.first_user_message ?? undefined,
      parentSession: row.parent_session ?? undefined,
    };
  }
}
