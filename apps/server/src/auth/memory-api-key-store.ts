import type {
  ApiKeyRecord,
  ApiKeyStore,
  IssuedKey,
  KeyOwner,
  TenantRecord,
} from "./api-key-schema.js";
import { emptyKeyBook, type KeyBook, keyBook } from "./key-book.js";

/** Tenants and keys in memory, for tests and throwaway servers. */
export class MemoryApiKeyStore implements ApiKeyStore {
  private readonly book: KeyBook = emptyKeyBook();
  constructor(private readonly now: () => Date = () => new Date()) {}

  /** {@inheritDoc ApiKeyStore.createTenant} */
  async createTenant(name: string): Promise<TenantRecord> {
    return keyBook.addTenant(this.book, name, this.now());
  }
  /** {@inheritDoc ApiKeyStore.listTenants} */
  async listTenants(): Promise<TenantRecord[]> {
    return [...this.book.tenants];
  }
  /** {@inheritDoc ApiKeyStore.getTenant} */
  async getTenant(id: string): Promise<TenantRecord | undefined> {
    return this.book.tenants.find((t) => t.id === id);
  }
  /** {@inheritDoc ApiKeyStore.createKey} */
  async createKey(tenantId: string, label?: string): Promise<IssuedKey> {
    return keyBook.addKey(this.book, tenantId, label, this.now());
  }
  /** {@inheritDoc ApiKeyStore.listKeys} */
  async listKeys(tenantId: string): Promise<ApiKeyRecord[]> {
    return this.book.keys.filter((k) => k.tenantId === tenantId);
  }
  /** {@inheritDoc ApiKeyStore.revokeKey} */
  async revokeKey(tenantId: string, keyId: string): Promise<boolean> {
    return keyBook.revoke(this.book, tenantId, keyId, this.now());
  }
  /** {@inheritDoc ApiKeyStore.authenticate} */
  async authenticate(key: string): Promise<KeyOwner | undefined> {
    return keyBook.owner(this.book, key);
  }
}
