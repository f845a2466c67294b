import { z } from "zod";
import {
  type ApiKeyRecord,
  apiKeyRecordSchema,
  hashKey,
  type IssuedKey,
  type KeyOwner,
  newId,
  newKey,
  type TenantRecord,
  tenantRecordSchema,
} from "./api-key-schema.js";

/** The whole content of a key store: what the file store writes as JSON. */
export const keyBookSchema = z.strictObject({
  version: z.literal(1),
  tenants: z.array(tenantRecordSchema),
  keys: z.array(apiKeyRecordSchema),
});
/** The content of a key store. */
export type KeyBook = z.infer<typeof keyBookSchema>;

/** An empty key book. */
export function emptyKeyBook(): KeyBook {
  return { version: 1, tenants: [], keys: [] };
}

/** Pure changes and look-ups on a key book, shared by the memory and file stores. */
export const keyBook = {
  addTenant(book: KeyBook, name: string, now: Date): TenantRecord {
    const tenant = { id: newId("t"), name, createdAt: now.toISOString() };
    book.tenants.push(tenant);
    return tenant;
  },
  addKey(book: KeyBook, tenantId: string, label: string | undefined, now: Date): IssuedKey {
    const key = newKey();
    const record: ApiKeyRecord = {
      id: newId("k"),
      tenantId,
      hash: hashKey(key),
      ...(label !== undefined ? { label } : {}),
      createdAt: now.toISOString(),
    };
    book.keys.push(record);
    return { record, key };
  },
  revoke(book: KeyBook, tenantId: string, keyId: string, now: Date): boolean {
    const record = book.keys.find((k) => k.id === keyId && k.tenantId === tenantId);
    if (!record || record.revokedAt) return false;
    record.revokedAt = now.toISOString();
    return true;
  },
  owner(book: KeyBook, key: string): KeyOwner | undefined {
    const hash = hashKey(key);
    const record = book.keys.find((k) => k.hash === hash && !k.revokedAt);
    return record ? { keyId: record.id, tenantId: record.tenantId } : undefined;
  },
};
