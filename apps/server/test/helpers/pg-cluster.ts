import { findPgBinaries } from "@arbor/session-store-postgres/test";

export { PgCluster } from "@arbor/session-store-postgres/test";

/** Where `initdb`, `pg_ctl` and `postgres` are (`pg_config`, Debian's folders, the PATH). */
export function findPgBindir(): string | undefined {
  const found = findPgBinaries({ path: process.env.PATH ?? "" });
  return found.ok ? found.bindir : undefined;
}

/**
 * A suite's missing prerequisite: under `CI=true` the run fails (a missing server never
 * passes for a green run), elsewhere the suite is skipped with a note.
 */
export function failUnderCi(missing: string | undefined, suite: string): void {
  if (!missing) return;
  if (process.env.CI === "true") throw new Error(`${suite} cannot run: ${missing}`);
  console.warn(`SKIPPING ${suite}: ${missing}`);
}
