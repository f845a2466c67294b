import type pg from "pg";
import {
  type ApiKeyRecord,
  type ApiKeyStore,
  hashKey,
  type IssuedKey,
  type KeyOwner,
  newId,
  newKey,
  type TenantRecord,
} from "./api-key-schema.js";

interface KeyRow {
  id: string;
  tenant_id: string;
  hash: string;
  label: string | null;
  created_at: Date;
  revoked_at: Date | null;
}

function keyOfRow(row: KeyRow): ApiKeyRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    hash: row.hash,
    ...(row.label !== null ? { label: row.label } : {}),
    createdAt: row.created_at.toISOString(),
    ...(row.revoked_at ? { revokedAt: row.revoked_at.toISOString() } : {}),
  };
}

function tenantOfRow(row: { id: string; name: string; created_at: Date }): TenantRecord {
  return { id: row.id, name: row.name, createdAt: row.created_at.toISOString() };
}

/**
 * Tenants and API keys in PostgreSQL (`tenants`, `api_keys`), so a key made through one
 * instance works on every other at once. Keys are stored only as their SHA-256, looked up
 * by a unique index on it.
 */
export class PostgresApiKeyStore implements ApiKeyStore {
  constructor(
    private readonly pool: pg.Pool,
    private readonly schema: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** {@inheritDoc ApiKeyStore.createTenant} */
  async createTenant(name: string): Promise<TenantRecord> {
    const tenant = { id: newId("t"), name, createdAt: this.now().toISOString() };
    await this.pool.query(
      `INSERT INTO ${this.schema}.tenants (id, name, created_at) VALUES ($1, $2, $3)`,
      [tenant.id, tenant.name, tenant.createdAt],
    );
    return tenant;
  }

  /** {@inheritDoc ApiKeyStore.listTenants} */
  async listTenants(): Promise<TenantRecord[]> {
    const { rows } = await this.pool.query(
      `SELECT id, name, created_at FROM ${this.schema}.tenants ORDER BY created_at, id`,
    );
    return rows.map(tenantOfRow);
  }

  /** {@inheritDoc ApiKeyStore.getTenant} */
  async getTenant(id: string): Promise<TenantRecord | undefined> {
    const { rows } = await this.pool.query(
      `SELECT id, name, created_at FROM ${this.schema}.tenants WHERE id = $1`,
      [id],
    );
    return rows[0] ? tenantOfRow(rows[0]) : undefined;
  }

  /** {@inheritDoc ApiKeyStore.createKey} */
  async createKey(tenantId: string, label?: string): Promise<IssuedKey> {
    const key = newKey();
    const record: ApiKeyRecord = {
      id: newId("k"),
      tenantId,
      hash: hashKey(key),
      ...(label !== undefined ? { label } : {}),
      createdAt: this.now().toISOString(),
    };
    await this.pool.query(
      `INSERT INTO ${this.schema}.api_keys (id, tenant_id, hash, label, created_at)
       VALUES ($1, $2, $3, $4, $5)`,
      [record.id, tenantId, record.hash, label ?? null, record.createdAt],
    );
    return { record, key };
  }

  /** {@inheritDoc ApiKeyStore.listKeys} */
  async listKeys(tenantId: string): Promise<ApiKeyRecord[]> {
    const { rows } = await this.pool.query<KeyRow>(
      `SELECT * FROM ${this.schema}.api_keys WHERE tenant_id = $1 ORDER BY created_at, id`,
      [tenantId],
    );
    return rows.map(keyOfRow);
  }

  /** {@inheritDoc ApiKeyStore.revokeKey} */
  async revokeKey(tenantId: string, keyId: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE ${this.schema}.api_keys SET revoked_at = $3
       WHERE id = $1 AND tenant_id = $2 AND revoked_at IS NULL`,
      [keyId, tenantId, this.now().toISOString()],
    );
    return (rowCount ?? 0) > 0;
  }

  /** {@inheritDoc ApiKeyStore.authenticate} */
  async authenticate(key: string): Promise<KeyOwner | undefined> {
    const { rows } = await this.pool.query<{ id: string; tenant_id: string }>(
      `SELECT id, tenant_id FROM ${this.schema}.api_keys WHERE hash = $1 AND revoked_at IS NULL`,
      [hashKey(key)],
    );
    return rows[0] ? { keyId: rows[0].id, tenantId: rows[0].tenant_id } : undefined;
  }
}
