import { InvalidStoreQueryError } from "@arbor/session-store";
import type pg from "pg";
import { TENANT_SETTING } from "./tenant-scope.js";

/**
 * The policies of migration 3: a session row is visible and writable only while the
 * transaction's `arbor.tenant` names its tenant; an entry only while its session is.
 * They take effect once row-level security is turned on for the tables
 * ({@link enableRowLevelSecurity}); until then they are inert.
 */
export function tenantPoliciesSql(schema: string): string {
  const current = `current_setting('${TENANT_SETTING}', true)`;
  return `
    CREATE POLICY tenant_sessions ON ${schema}.sessions
      USING ('t:' || tenant = ${current})
      WITH CHECK ('t:' || tenant = ${current});
    CREATE POLICY tenant_entries ON ${schema}.entries
      USING (EXISTS (SELECT 1 FROM ${schema}.sessions s WHERE s.id = session_id))
      WITH CHECK (EXISTS (SELECT 1 FROM ${schema}.sessions s WHERE s.id = session_id));
  `;
}

/** Whether the schema's tables have row-level security on, and whether this role escapes it. */
async function state(
  pool: pg.Pool,
  schema: string,
): Promise<{ enabled: boolean; bypass: boolean; role: string }> {
  const { rows } = await pool.query<{ enabled: boolean; bypass: boolean; role: string }>(
    `SELECT c.relrowsecurity AND c.relforcerowsecurity AS enabled,
            r.rolsuper OR r.rolbypassrls AS bypass, r.rolname AS role
     FROM pg_class c, pg_roles r
     WHERE c.oid = $1::regclass AND r.rolname = current_user`,
    [`${schema}.sessions`],
  );
  const row = rows[0];
  return { enabled: row?.enabled ?? false, bypass: row?.bypass ?? false, role: row?.role ?? "" };
}

/**
 * Turns row-level security on for the store's tables (forced, so it binds their owner too),
 * or, when not asked for, checks that no other instance turned it on: a store that does not
 * set the tenant would find no sessions in such a schema.
 * @throws InvalidStoreQueryError (`rowLevelSecurity`) when asked for by a role that row-level
 * security does not bind (a superuser or a role with BYPASSRLS), or when the schema has it on
 * and the store was not told
 */
export async function enableRowLevelSecurity(
  pool: pg.Pool,
  schema: string,
  wanted: boolean,
): Promise<void> {
  const now = await state(pool, schema);
  if (!wanted) {
    if (now.enabled) {
      throw new InvalidStoreQueryError(
        "rowLevelSecurity",
        `the tables of schema ${schema} have row-level security on; connect with { rowLevelSecurity: true }`,
      );
    }
    return;
  }
  if (now.bypass) {
    throw new InvalidStoreQueryError(
      "rowLevelSecurity",
      `role "${now.role}" is a superuser or has BYPASSRLS, so row-level security would not bind it; connect as a role without either`,
    );
  }
  if (now.enabled) return;
  await pool.query(
    `ALTER TABLE ${schema}.sessions ENABLE ROW LEVEL SECURITY;
     ALTER TABLE ${schema}.sessions FORCE ROW LEVEL SECURITY;
     ALTER TABLE ${schema}.entries ENABLE ROW LEVEL SECURITY;
     ALTER TABLE ${schema}.entries FORCE ROW LEVEL SECURITY;`,
  );
}
