import { z } from "zod";

/** Where a run is: waiting its turn, executing, or ended (and how). */
export const RUN_STATUSES = [
  "queued",
  "running",
  "completed",
  "failed",
  "aborted",
  "cancelled",
  "interrupted",
] as const;

/** A run's status. */
export const runStatusSchema = z.enum(RUN_STATUSES);
/** A run's status. */
export type RunStatus = z.infer<typeof runStatusSchema>;

/** The statuses after which nothing changes. */
export function isTerminal(status: RunStatus): boolean {
  return status !== "queued" && status !== "running";
}

/** A run id: `run_` and 24 hex digits. */
export const runIdSchema = z
  .string()
  .regex(/^run_[a-f0-9]{24}$/, "a run id (run_ and 24 hex digits)");

/** A run as the server records it: durable, so any process can answer for it. */
export const runRecordSchema = z.object({
  id: runIdSchema,
  sessionId: z.string(),
  tenantId: z.string(),
  agent: z.string(),
  status: runStatusSchema,
  createdAt: z.iso.datetime(),
  startedAt: z.iso.datetime().optional(),
  endedAt: z.iso.datetime().optional(),
  /** The `seq` of the last event stored (0: none yet). */
  lastSeq: z.number().int().nonnegative(),
  /**
   * Events up to this `seq` were removed by retention (the PostgreSQL log): a client resuming
   * from an older cursor gets a `resync` event instead of them.
   */
  eventsPrunedThrough: z.number().int().nonnegative().optional(),
  /**
   * The run's result once it ended (the `agent_end` event's, turn-runner's `OrchestrationResult`).
   * Checked loosely: a record written by an older version reads unchanged.
   */
  result: z.looseObject({ success: z.boolean(), runId: z.string() }).optional(),
  /** Why a run ended without a result (it could not start, it was cancelled). */
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});
/** A run as the server records it. */
export type RunRecord = z.infer<typeof runRecordSchema>;
