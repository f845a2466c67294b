import { z } from "zod";

/**
 * How instances sharing one PostgreSQL (`database`) cooperate. Ignored without a database.
 */
export const clusterSettingsSchema = z.strictObject({
  /** This instance's id on the runs it executes; default host name, pid and random bytes. */
  instanceId: z.string().min(1).max(200).optional(),
  /**
   * How long a run's lease lasts without a heartbeat (renewed every third of it): a run of
   * an instance that died is marked interrupted this long after its last heartbeat.
   */
  leaseTtlMs: z.number().int().min(300).max(600_000).default(15_000),
  /** How often each instance looks at expired leases, queued runs and watched runs. */
  pollMs: z.number().int().min(50).max(60_000).default(1_000),
  /** On SIGTERM, how long running runs may finish before they are interrupted. */
  shutdownGraceMs: z.number().int().min(0).max(3_600_000).default(10_000),
  /** How long a run's events are kept after it ended; older cursors get a `resync`. */
  eventRetentionMs: z
    .number()
    .int()
    .min(1_000)
    .default(7 * 24 * 3600 * 1000),
  /** The most runs one instance executes at once; more wait queued for any instance. */
  maxRunsPerInstance: z.number().int().min(1).max(100_000).default(200),
  /** Connections of each of the two pools (sessions; runs and keys), plus one for LISTEN. */
  maxConnections: z.number().int().min(1).max(1000).default(10),
});

/** The cluster settings, with defaults applied. */
export type ClusterSettings = z.output<typeof clusterSettingsSchema>;
