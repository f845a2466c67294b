import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { deleteSession, listSessions } from "../listing.js";
import { createSession, defaultSessionDir, openSessionFile } from "../open.js";
import type { Session } from "../session.js";
import { sessionFileName } from "../session-options.js";
import type { Durability } from "../storage/session-storage.js";
import { pageOf } from "./cursor.js";
import { importableLines } from "./log-lines.js";
import { checkTenant } from "./memory-session-store.js";
import {
  type CreateStoredSessionOptions,
  type ImportedSession,
  type OpenStoredSessionOptions,
  parseListQuery,
  type SessionListQuery,
  type SessionPage,
  type SessionStore,
  type StoredSessionInfo,
} from "./session-store.js";
import { InvalidStoreQueryError, SessionNotFoundError } from "./store-errors.js";

/** Options of {@link FileSessionStore}. */
export interface FileSessionStoreOptions {
  /** The folder holding one folder of session files per working directory. */
  root: string;
  /** How durable an append is before it resolves. Default `always`. */
  durability?: Durability;
}

/** Where tenants' folders are kept, apart from the sessions created without a tenant. */
const TENANTS_DIR = ".tenants";

/**
 * The file store: today's layout, unchanged on disk. Each working directory has a folder
 * under `root` named as pi names them (see `defaultSessionDir`), holding
 * `<time>_<id>.jsonl` files and their listing index; a tenant's sessions are kept the same
 * way under `root/.tenants/<tenant, base64url>/`.
 */
export class FileSessionStore implements SessionStore {
  /**
   * The files of sessions this store made or found, by tenant and id (at most
   * {@link KNOWN_PATHS}, oldest forgotten first): a known file is checked with one `stat`
   * instead of reading the tenant's folders, and looked for again when it is gone.
   */
  private readonly known = new Map<string, string>();

  constructor(private readonly options: FileSessionStoreOptions) {}

  /** {@inheritDoc SessionStore.create} */
  async create(options: CreateStoredSessionOptions): Promise<Session> {
    const { tenant, ...rest } = options;
    const dir = this.dirOf(checkTenant(tenant), options.cwd);
    const session = await createSession({ ...this.durability(), ...rest, dir });
    this.remember(session.id, tenant, session.location);
    return session;
  }

  /** {@inheritDoc SessionStore.open} */
  async open(id: string, options: OpenStoredSessionOptions = {}): Promise<Session> {
    const { tenant, ...rest } = options;
    const path = await this.find(id, tenant);
    return openSessionFile(path, { ...this.durability(), ...rest });
  }

  /** {@inheritDoc SessionStore.has} */
  async has(id: string, options: { tenant?: string } = {}): Promise<boolean> {
    return this.find(id, options.tenant).then(
      () => true,
      (error: unknown) => {
        if (SessionNotFoundError.isInstance(error)) return false;
        throw error;
      },
    );
  }

  /** {@inheritDoc SessionStore.list} */
  async list(query: SessionListQuery = {}): Promise<SessionPage> {
    const parsed = parseListQuery(query);
    const root = this.tenantRoot(checkTenant(parsed.tenant));
    const dirs =
      parsed.cwd === undefined
        ? (await subfolders(root)).map((name) => join(root, name))
        : [this.dirOf(parsed.tenant, parsed.cwd)];
    const all: StoredSessionInfo[] = [];
    for (const dir of dirs) {
      for (const info of await listSessions(dir)) {
        const { path, ...rest } = info;
        all.push({ ...rest, location: path, tenant: parsed.tenant });
      }
    }
    return pageOf(all, parsed);
  }

  /** {@inheritDoc SessionStore.delete} */
  async delete(id: string, options: { tenant?: string } = {}): Promise<void> {
    await deleteSession(await this.find(id, options.tenant));
    this.known.delete(knownKey(id, options.tenant));
  }

  /** {@inheritDoc SessionStore.fork} */
  async fork(id: string, leafId: string, options: OpenStoredSessionOptions = {}): Promise<Session> {
    const source = await this.open(id, { ...options, readOnly: true });
    return source.fork(leafId);
  }

  /** {@inheritDoc SessionStore.importLog} */
  async importLog(text: string, options: { tenant?: string } = {}): Promise<ImportedSession> {
    const tenant = checkTenant(options.tenant);
    const imported = await importableLines(text, this.options.root);
    const id = imported.header.id;
    if (await this.find(id, tenant).catch(() => undefined)) {
      throw new InvalidStoreQueryError("text", `session "${id}" is already in the store`);
    }
    const dir = this.dirOf(tenant, imported.header.cwd ?? "");
    await mkdir(dir, { recursive: true });
    const created = Date.parse(imported.header.timestamp);
    const path = join(dir, sessionFileName(id, Number.isNaN(created) ? 0 : created));
    await writeFile(path, `${imported.lines.join("\n")}\n`, { flag: "wx" });
    return { id, problems: imported.problems };
  }

  /** {@inheritDoc SessionStore.close} */
  async close(): Promise<void> {}

  private durability(): { durability?: Durability } {
    return this.options.durability ? { durability: this.options.durability } : {};
  }

  private tenantRoot(tenant: string | undefined): string {
    if (tenant === undefined) return this.options.root;
    return join(this.options.root, TENANTS_DIR, tenantFolderName(tenant));
  }

  private dirOf(tenant: string | undefined, cwd: string): string {
    return join(this.tenantRoot(tenant), basename(defaultSessionDir("/", cwd)));
  }

  /** The file of a session: `<time>_<id>.jsonl` in one of the tenant's folders. */
  private async find(id: string, tenant: string | undefined): Promise<string> {
    const root = this.tenantRoot(checkTenant(tenant));
    const key = knownKey(id, tenant);
    const known = this.known.get(key);
    if (known !== undefined) {
      if (existsSync(known)) return known;
      this.known.delete(key);
    }
    const suffix = `_${id}.jsonl`;
    if (id.length > 0 && !/[/\\]/.test(id)) {
      for (const dir of await subfolders(root)) {
        const names = await readdir(join(root, dir)).catch(() => [] as string[]);
        const name = names.find((n) => n.endsWith(suffix));
        if (name) return this.remember(id, tenant, join(root, dir, name));
      }
    }
    throw new SessionNotFoundError(id, tenant);
  }

  private remember(id: string, tenant: string | undefined, path: string): string {
    const key = knownKey(id, tenant);
    this.known.delete(key);
    this.known.set(key, path);
    if (this.known.size > KNOWN_PATHS) {
      const oldest = this.known.keys().next().value;
      if (oldest !== undefined) this.known.delete(oldest);
    }
    return path;
  }
}

/**
 * A tenant's folder: its name in base64url; one over 255 bytes (a tenant of more than 191
 * bytes) as its first part, `~` (never in base64url, so no short name can be taken for it)
 * and the SHA-256 of the whole name, so no two tenants ever share a folder.
 */
function tenantFolderName(tenant: string): string {
  const encoded = Buffer.from(tenant, "utf8").toString("base64url");
  if (encoded.length <= 255) return encoded;
  return `${encoded.slice(0, 150)}~${createHash("sha256").update(tenant, "utf8").digest("hex")}`;
}

/** How many session files a {@link FileSessionStore} keeps the place of. */
const KNOWN_PATHS = 10_000;

/** The key of a session in {@link FileSessionStore}'s known files: one pair, one key. */
function knownKey(id: string, tenant: string | undefined): string {
  return JSON.stringify([tenant ?? null, id]);
}

async function subfolders(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries.filter((e) => e.isDirectory() && e.name !== TENANTS_DIR).map((e) => e.name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}
