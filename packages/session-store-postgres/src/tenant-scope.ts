import type pg from "pg";

/** What runs a query: the pool, or one client inside a tenant's transaction. */
export type Queryable = Pick<pg.PoolClient, "query">;

/** The session setting row-level security reads the current tenant from. */
export const TENANT_SETTING = "arbor.tenant";

/**
 * The setting's value for a tenant (`""` for sessions without one). The prefix keeps a
 * connection that never set it (or set it outside a transaction that ended: the setting
 * then reads `""`) from matching the sessions without a tenant.
 */
export function tenantSettingValue(tenant: string): string {
  return `t:${tenant}`;
}

/**
 * Runs `work` with the tenant's scope: through the pool as it is when row-level security is
 * off, else on one client in a transaction that sets `arbor.tenant` locally (`SET LOCAL`),
 * so every statement of `work` sees that tenant's rows and no other's.
 */
export async function inTenantScope<T>(
  pool: pg.Pool,
  rowLevelSecurity: boolean,
  tenant: string,
  work: (db: Queryable) => Promise<T>,
): Promise<T> {
  if (!rowLevelSecurity) return work(pool);
  const client = await pool.connect();
  let broken: unknown;
  try {
    await client.query("BEGIN");
    await setTenant(client, tenant);
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch((rollbackError: unknown) => {
      broken = rollbackError;
    });
    throw error;
  } finally {
    // A client whose rollback failed is in an unknown state: it is closed, not reused.
    client.release(broken instanceof Error ? broken : undefined);
  }
}

/** Sets the tenant for the rest of the client's current transaction. */
export async function setTenant(client: Queryable, tenant: string): Promise<void> {
  await client.query("SELECT set_config($1, $2, true)", [
    TENANT_SETTING,
    tenantSettingValue(tenant),
  ]);
}
