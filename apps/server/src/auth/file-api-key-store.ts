import { statSync } from "node:fs";
import { mkdir, open, readFile, rename } from "node:fs/promises";
import { dirname } from "node:path";
import { ArborError, arborErrorGuard, withSharedFileLock } from "@arbor/session-store";
import type {
  ApiKeyRecord,
  ApiKeyStore,
  IssuedKey,
  KeyOwner,
  TenantRecord,
} from "./api-key-schema.js";
import { emptyKeyBook, type KeyBook, keyBook, keyBookSchema } from "./key-book.js";

/** The key file holds something that is not a key book; it is never overwritten. */
export class KeyFileError extends ArborError {
  override readonly name = "KeyFileError";
  declare readonly code: "invalid_key_file";
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super("invalid_key_file", `${path}: ${reason}; fix or move the file, it was left unchanged`);
  }

  /** Tells whether a value is a KeyFileError. */
  static override readonly isInstance = arborErrorGuard<KeyFileError>("@arbor/server:KeyFileError");
}

/**
 * Tenants and hashed keys in one JSON file, replaced atomically (written to a temporary
 * file, synced, renamed) on every change. Each change reads the file afresh and writes it
 * under a cross-process lock (`<file>.lock`), so server processes sharing a home lose no
 * change of each other's. The file is read again whenever it changed on disk, so a second
 * server process on the same home sees new keys, and stops accepting revoked ones.
 */
export class FileApiKeyStore implements ApiKeyStore {
  private book: KeyBook | undefined;
  private seen = "";

  constructor(
    readonly path: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** {@inheritDoc ApiKeyStore.createTenant} */
  createTenant(name: string): Promise<TenantRecord> {
    return this.change((book) => keyBook.addTenant(book, name, this.now()));
  }
  /** {@inheritDoc ApiKeyStore.listTenants} */
  async listTenants(): Promise<TenantRecord[]> {
    return [...(await this.current()).tenants];
  }
  /** {@inheritDoc ApiKeyStore.getTenant} */
  async getTenant(id: string): Promise<TenantRecord | undefined> {
    return (await this.current()).tenants.find((t) => t.id === id);
  }
  /** {@inheritDoc ApiKeyStore.createKey} */
  createKey(tenantId: string, label?: string): Promise<IssuedKey> {
    return this.change((book) => keyBook.addKey(book, tenantId, label, this.now()));
  }
  /** {@inheritDoc ApiKeyStore.listKeys} */
  async listKeys(tenantId: string): Promise<ApiKeyRecord[]> {
    return (await this.current()).keys.filter((k) => k.tenantId === tenantId);
  }
  /** {@inheritDoc ApiKeyStore.revokeKey} */
  revokeKey(tenantId: string, keyId: string): Promise<boolean> {
    return this.change((book) => keyBook.revoke(book, tenantId, keyId, this.now()));
  }
  /** {@inheritDoc ApiKeyStore.authenticate} */
  async authenticate(key: string): Promise<KeyOwner | undefined> {
    return keyBook.owner(await this.current(), key);
  }

  /**
   * The book as on disk now (read again only when the file changed). Every request asks, so
   * the check is a synchronous `stat`: microseconds, where a trip through the thread pool
   * added up to a millisecond to each request.
   */
  private async current(): Promise<KeyBook> {
    const info = statSync(this.path, { throwIfNoEntry: false });
    if (!info) {
      this.book = emptyKeyBook();
      this.seen = "";
      return this.book;
    }
    const signature = `${info.mtimeMs}:${info.size}:${info.ino}`;
    if (this.book && signature === this.seen) return this.book;
    const text = await readFile(this.path, "utf8");
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      throw new KeyFileError(this.path, "not JSON");
    }
    const parsed = keyBookSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new KeyFileError(this.path, `${issue?.path.join(".") || "(file)"}: ${issue?.message}`);
    }
    this.book = parsed.data;
    this.seen = signature;
    return this.book;
  }

  /**
   * Applies a change to the book as on disk now and replaces the file, under the file's
   * cross-process lock; changes of this process run one at a time.
   */
  private change<T>(apply: (book: KeyBook) => T): Promise<T> {
    return withSharedFileLock(this.path, async () => {
      this.book = undefined;
      const book = structuredClone(await this.current());
      const result = apply(book);
      await writeAtomically(this.path, `${JSON.stringify(book, null, 2)}\n`);
      this.book = undefined;
      return result;
    });
  }
}

let tempCounter = 0;

/**
 * Writes a file whole or not at all: a temporary file, renamed over the old one. With
 * `sync` (the default) the bytes reach the disk before the rename, so the change survives a
 * power loss too; without it, it survives a crash of the process.
 */
export async function writeAtomically(
  path: string,
  text: string,
  options: { sync?: boolean } = {},
): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.${++tempCounter}.tmp`;
  const handle = await open(temp, "w", 0o600);
  try {
    await handle.writeFile(text, "utf8");
    if (options.sync ?? true) await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, path);
}
