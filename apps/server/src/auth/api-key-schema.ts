import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { z } from "zod";

/** A tenant: the owner of sessions and API keys. */
export const tenantRecordSchema = z.strictObject({
  id: z.string().regex(/^t_[a-f0-9]{16}$/),
  name: z.string().min(1).max(200),
  createdAt: z.iso.datetime(),
});
/** A tenant. */
export type TenantRecord = z.infer<typeof tenantRecordSchema>;

/** An API key as stored: only the SHA-256 of the key, never the key. */
export const apiKeyRecordSchema = z.strictObject({
  id: z.string().regex(/^k_[a-f0-9]{16}$/),
  tenantId: z.string(),
  /** Hex SHA-256 of the key. */
  hash: z.string().regex(/^[a-f0-9]{64}$/),
  label: z.string().max(200).optional(),
  createdAt: z.iso.datetime(),
  revokedAt: z.iso.datetime().optional(),
});
/** An API key as stored. */
export type ApiKeyRecord = z.infer<typeof apiKeyRecordSchema>;

/** Who a request's key belongs to. */
export interface KeyOwner {
  keyId: string;
  tenantId: string;
}

/** A key made by {@link ApiKeyStore.createKey}: the only time the key itself is seen. */
export interface IssuedKey {
  record: ApiKeyRecord;
  key: string;
}

/** The hex SHA-256 of a key: what is stored and looked up. */
export function hashKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

/** A new random key: `arb_` and 32 random bytes in base64url. */
export function newKey(): string {
  return `arb_${randomBytes(32).toString("base64url")}`;
}

/** A new id with a prefix and 8 random bytes in hex. */
export function newId(prefix: "t" | "k"): string {
  return `${prefix}_${randomBytes(8).toString("hex")}`;
}

/** Compares two keys in time independent of where they differ. */
export function sameKey(a: string, b: string): boolean {
  return timingSafeEqual(Buffer.from(hashKey(a), "hex"), Buffer.from(hashKey(b), "hex"));
}

/**
 * Where tenants and API keys are kept. Keys are stored hashed; a key belongs to one tenant.
 */
export interface ApiKeyStore {
  /** Adds a tenant. */
  createTenant(name: string): Promise<TenantRecord>;
  /** Every tenant. */
  listTenants(): Promise<TenantRecord[]>;
  /** The tenant with this id, if any. */
  getTenant(id: string): Promise<TenantRecord | undefined>;
  /** Makes a key for a tenant; the key is returned once and stored only as a hash. */
  createKey(tenantId: string, label?: string): Promise<IssuedKey>;
  /** The tenant's keys (hashes never leave the store). */
  listKeys(tenantId: string): Promise<ApiKeyRecord[]>;
  /** Revokes a key; false when the tenant has no such key. */
  revokeKey(tenantId: string, keyId: string): Promise<boolean>;
  /** Who owns a key, or undefined for an unknown or revoked one. */
  authenticate(key: string): Promise<KeyOwner | undefined>;
}
