import type { RunRecord, RunStatus } from "../run-record.js";

/** A row of `runs` as `pg` returns it. */
export interface RunRow {
  id: string;
  session_id: string;
  tenant_id: string;
  agent: string;
  status: RunStatus;
  request: { prompt: string; images?: unknown[]; command?: { name: string; args: string } };
  created_at: Date;
  started_at: Date | null;
  ended_at: Date | null;
  last_seq: string;
  events_pruned_through: string;
  result: RunRecord["result"] | null;
  error: RunRecord["error"] | null;
  owner: string | null;
  generation: string;
  control: string | null;
}

/** The columns a {@link RunRow} reads. */
export const RUN_COLUMNS =
  "id, session_id, tenant_id, agent, status, request, created_at, started_at, ended_at, last_seq, events_pruned_through, result, error, owner, generation, control";

/** A row as the record the rest of the server knows. */
export function recordOfRow(row: RunRow): RunRecord {
  const pruned = Number(row.events_pruned_through);
  return {
    id: row.id,
    sessionId: row.session_id,
    tenantId: row.tenant_id,
    agent: row.agent,
    status: row.status,
    createdAt: row.created_at.toISOString(),
    ...(row.started_at ? { startedAt: row.started_at.toISOString() } : {}),
    ...(row.ended_at ? { endedAt: row.ended_at.toISOString() } : {}),
    lastSeq: Number(row.last_seq),
    ...(pruned > 0 ? { eventsPrunedThrough: pruned } : {}),
    ...(row.result ? { result: row.result } : {}),
    ...(row.error ? { error: row.error } : {}),
  };
}
