import { SessionLockedError } from "@arbor/session-store";
import type { Queryable } from "./tenant-scope.js";

/** Who asks for a lease: one per storage object, so two opens in one process conflict. */
export interface LeaseHolder {
  holder: string;
  pid: number;
  host: string;
}

/** Where the lease is and how long it lasts without renewal. */
export interface LeaseTarget {
  schema: string;
  sessionId: string;
  tenant: string;
  location: string;
  leaseTtlMs: number;
}

/** The outcome of asking for a lease. */
export type LeaseOutcome = { ok: true; token: string } | { ok: false; reason: "missing" };

/**
 * Takes a session's lease: free, expired (its holder died or stalled past the TTL) or
 * already ours. Each take increments the fencing token, so the previous holder's writes,
 * fenced by its token, fail from then on. With `create`, a missing session row is made
 * (without a header until the session writes one).
 * @throws SessionLockedError naming the live holder's pid
 */
export async function acquireLease(
  db: Queryable,
  target: LeaseTarget,
  who: LeaseHolder,
  create: boolean,
): Promise<LeaseOutcome> {
  const { schema, sessionId, tenant, leaseTtlMs } = target;
  const take = create
    ? `INSERT INTO ${schema}.sessions AS s
         (id, tenant, created, lease_holder, lease_pid, lease_host, lease_token, lease_expires)
       VALUES ($1, $2, $6, $3, $4, $5, 1, now() + $7 * interval '1 millisecond')
       ON CONFLICT (id) DO UPDATE SET lease_holder = $3, lease_pid = $4, lease_host = $5,
         lease_token = s.lease_token + 1, lease_expires = now() + $7 * interval '1 millisecond'
       WHERE s.tenant = $2 AND (s.lease_holder IS NULL OR s.lease_expires < now() OR s.lease_holder = $3)
       RETURNING s.lease_token::text AS token`
    : `UPDATE ${schema}.sessions s SET lease_holder = $3, lease_pid = $4, lease_host = $5,
         lease_token = s.lease_token + 1, lease_expires = now() + $7 * interval '1 millisecond'
       WHERE s.id = $1 AND s.tenant = $2 AND $6::timestamptz IS NOT NULL
         AND (s.lease_holder IS NULL OR s.lease_expires < now() OR s.lease_holder = $3)
       RETURNING s.lease_token::text AS token`;
  const { rows } = await db.query<{ token: string }>(take, [
    sessionId,
    tenant,
    who.holder,
    who.pid,
    who.host,
    new Date(),
    leaseTtlMs,
  ]);
  if (rows[0]) return { ok: true, token: rows[0].token };
  const held = await db.query<{ pid: number | null; host: string | null }>(
    `SELECT lease_pid AS pid, lease_host AS host FROM ${schema}.sessions
     WHERE id = $1 AND tenant = $2`,
    [sessionId, tenant],
  );
  const holder = held.rows[0];
  if (!holder) return { ok: false, reason: "missing" };
  throw new SessionLockedError(
    holder.host ? `${target.location} (held from ${holder.host})` : target.location,
    holder.pid ?? 0,
  );
}

/**
 * Extends a lease still ours.
 * @returns false when it was taken over or the session deleted
 */
export async function renewLease(
  db: Queryable,
  target: LeaseTarget,
  who: LeaseHolder,
  token: string,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE ${target.schema}.sessions SET lease_expires = now() + $4 * interval '1 millisecond'
     WHERE id = $1 AND lease_token = $2 AND lease_holder = $3`,
    [target.sessionId, token, who.holder, target.leaseTtlMs],
  );
  return (rowCount ?? 0) > 0;
}

/** Gives a lease back, if still ours. */
export async function releaseLease(
  db: Queryable,
  target: LeaseTarget,
  who: LeaseHolder,
  token: string,
): Promise<void> {
  await db.query(
    `UPDATE ${target.schema}.sessions SET lease_holder = NULL, lease_expires = NULL
     WHERE id = $1 AND lease_token = $2 AND lease_holder = $3`,
    [target.sessionId, token, who.holder],
  );
}
