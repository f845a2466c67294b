import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PostgresApiKeyStore } from "../src/auth/postgres-api-key-store.js";
import { type ApiKeyStore, FileApiKeyStore, MemoryApiKeyStore } from "../src/index.js";
import { serverDatabaseSuite } from "./helpers/server-database-suite.js";

const db = serverDatabaseSuite("the PostgreSQL key store tests", "arbor-server-keys-");

/** Every key store: the same behaviour, whatever keeps the keys. */
const stores: Array<[string, () => ApiKeyStore, boolean]> = [
  ["MemoryApiKeyStore", () => new MemoryApiKeyStore(), true],
  ["FileApiKeyStore", () => new FileApiKeyStore(join(db.dir, `${Math.random()}.json`)), true],
  ["PostgresApiKeyStore", () => new PostgresApiKeyStore(db.pool, "arbor"), db.available],
];

for (const [name, make, available] of stores) {
  describe.skipIf(!available)(`${name} (the ApiKeyStore contract)`, () => {
    it("authenticates a key of a tenant, never a near miss, and not after it is revoked", async () => {
      const store = make();
      const tenant = await store.createTenant("acme");
      const other = await store.createTenant("other");
      const issued = await store.createKey(tenant.id, "ci");
      expect(issued.key).toMatch(/^arb_[A-Za-z0-9_-]{43}$/);
      expect(issued.record).toMatchObject({ tenantId: tenant.id, label: "ci" });
      expect(await store.authenticate(issued.key)).toEqual({
        keyId: issued.record.id,
        tenantId: tenant.id,
      });
      for (const miss of [`${issued.key}x`, issued.key.slice(0, -1), "", issued.record.hash]) {
        expect(await store.authenticate(miss)).toBeUndefined();
      }
      expect(await store.revokeKey(other.id, issued.record.id)).toBe(false);
      expect(await store.revokeKey(tenant.id, issued.record.id)).toBe(true);
      expect(await store.revokeKey(tenant.id, issued.record.id)).toBe(false);
      expect(await store.authenticate(issued.key)).toBeUndefined();
    });

    it("lists tenants and each tenant's keys (hashes only, revocations shown)", async () => {
      const store = make();
      const tenant = await store.createTenant("listed");
      const a = await store.createKey(tenant.id);
      const b = await store.createKey(tenant.id, "second");
      await store.revokeKey(tenant.id, a.record.id);
      const keys = await store.listKeys(tenant.id);
      expect(keys.map((k) => k.id).sort()).toEqual([a.record.id, b.record.id].sort());
      expect(keys.find((k) => k.id === a.record.id)?.revokedAt).toBeDefined();
      expect(JSON.stringify(keys)).not.toContain(a.key);
      expect((await store.listTenants()).map((t) => t.id)).toContain(tenant.id);
      expect(await store.getTenant(tenant.id)).toEqual(tenant);
      expect(await store.getTenant("t_0000000000000000")).toBeUndefined();
      expect(await store.listKeys("t_0000000000000000")).toEqual([]);
    });
  });
}
