import { generateSessionId } from "../ids.js";
import { Session } from "../session.js";
import { newSessionHeader } from "../session-options.js";
import { isSpareCopyId } from "../spare-copy.js";
import { MemorySessionStorage } from "../storage/memory-storage.js";
import { pageOf } from "./cursor.js";
import { forkLines, importableLines } from "./log-lines.js";
import {
  type CreateStoredSessionOptions,
  type ImportedSession,
  type OpenStoredSessionOptions,
  parseListQuery,
  type SessionListQuery,
  type SessionPage,
  type SessionStore,
  tenantSchema,
} from "./session-store.js";
import { summarizeSession } from "./session-summary.js";
import { InvalidStoreQueryError, SessionNotFoundError } from "./store-errors.js";

/**
 * A store that keeps every session in memory, for tests, previews and sessions that should
 * leave no trace. Sessions live as long as the store object.
 */
export class MemorySessionStore implements SessionStore {
  private readonly tenants = new Map<string, string | undefined>();
  private readonly prefix = `memory:${crypto.randomUUID()}/`;

  /** {@inheritDoc SessionStore.create} */
  async create(options: CreateStoredSessionOptions): Promise<Session> {
    const tenant = checkTenant(options.tenant);
    const now = options.now ?? Date.now;
    const sessionId = generateSessionId(now());
    const session = await Session.open(this.storageOf(sessionId), {
      ...options,
      create: true,
      sessionId,
    });
    this.tenants.set(sessionId, tenant);
    return session;
  }

  /** {@inheritDoc SessionStore.open} */
  async open(id: string, options: OpenStoredSessionOptions = {}): Promise<Session> {
    this.find(id, options.tenant);
    const { tenant: _, ...rest } = options;
    return Session.open(this.storageOf(id), rest);
  }

  /** {@inheritDoc SessionStore.has} */
  async has(id: string, options: { tenant?: string } = {}): Promise<boolean> {
    return this.tenants.has(id) && this.tenants.get(id) === checkTenant(options.tenant);
  }

  /** {@inheritDoc SessionStore.list} */
  async list(query: SessionListQuery = {}): Promise<SessionPage> {
    const parsed = parseListQuery(query);
    const all = [];
    for (const [id, tenant] of this.tenants) {
      if (tenant !== parsed.tenant || isSpareCopyId(id)) continue;
      const storage = this.storageOf(id);
      if (!(await storage.read())) {
        // Deleted through the session itself (`Session.delete()`).
        this.tenants.delete(id);
        continue;
      }
      const session = await Session.open(storage, { readOnly: true });
      all.push(summarizeSession(session, tenant));
    }
    return pageOf(all, parsed);
  }

  /** {@inheritDoc SessionStore.delete} */
  async delete(id: string, options: { tenant?: string } = {}): Promise<void> {
    this.find(id, options.tenant);
    const storage = this.storageOf(id);
    await storage.lock();
    await storage.delete();
    this.tenants.delete(id);
  }

  /** {@inheritDoc SessionStore.fork} */
  async fork(id: string, leafId: string, options: OpenStoredSessionOptions = {}): Promise<Session> {
    const tenant = this.find(id, options.tenant);
    const source = await this.open(id, { ...options, readOnly: true });
    const now = options.now ?? Date.now;
    const sessionId = generateSessionId(now());
    const header = newSessionHeader({
      sessionId,
      now,
      cwd: source.getHeader().cwd ?? "",
      parentSession: source.location,
    });
    const lines = forkLines(source, leafId, header, now);
    const storage = this.storageOf(sessionId);
    await storage.replace(lines);
    this.tenants.set(sessionId, tenant);
    const { tenant: _, readOnly: __, ...seams } = options;
    return Session.open(storage, seams);
  }

  /** {@inheritDoc SessionStore.importLog} */
  async importLog(text: string, options: { tenant?: string } = {}): Promise<ImportedSession> {
    const tenant = checkTenant(options.tenant);
    const imported = await importableLines(text, this.prefix);
    const id = imported.header.id;
    if (this.tenants.has(id)) {
      throw new InvalidStoreQueryError("text", `session "${id}" is already in the store`);
    }
    await this.storageOf(id).replace(imported.lines);
    this.tenants.set(id, tenant);
    return { id, problems: imported.problems };
  }

  /** {@inheritDoc SessionStore.close} */
  async close(): Promise<void> {}

  private storageOf(id: string): MemorySessionStorage {
    return new MemorySessionStorage(`${this.prefix}${id}`);
  }

  /** The tenant of a session, checked against the one asked for. */
  private find(id: string, tenant: string | undefined): string | undefined {
    if (!this.tenants.has(id) || this.tenants.get(id) !== tenant)
      throw new SessionNotFoundError(id, tenant);
    return tenant;
  }
}

/** A tenant name checked, or undefined. */
export function checkTenant(tenant: string | undefined): string | undefined {
  if (tenant === undefined) return undefined;
  const parsed = tenantSchema.safeParse(tenant);
  if (!parsed.success) throw new InvalidStoreQueryError("tenant", "1 to 200 characters");
  return parsed.data;
}
