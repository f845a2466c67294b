import { z } from "zod";

/** A snapshot's id: the full sha of the shadow store's commit that holds it. */
export const snapshotIdSchema = z
  .string()
  .regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/, "a snapshot id is a 40- or 64-digit hex sha");

/** Why a file was left out of a snapshot. */
export const skipReasonSchema = z.enum(["too_large", "unreadable"]);

/** A file a snapshot left out, and why. */
export const skippedFileSchema = z.object({
  /** Path relative to the workspace, `/`-separated. */
  path: z.string(),
  reason: skipReasonSchema,
  /** The file's size in bytes when it was too large. */
  bytes: z.number().int().nonnegative().optional(),
});

/** What {@link CheckpointStore.snapshot} returns. */
export const snapshotResultSchema = z.object({
  id: snapshotIdSchema,
  /** The snapshot before this one in the store, or undefined for the first. */
  previousId: snapshotIdSchema.optional(),
  /** Paths added, changed or deleted since the previous snapshot (every path for the first). */
  changed: z.array(z.string()),
  /** Files left out of this snapshot (over the size limit, unreadable). */
  skipped: z.array(skippedFileSchema),
});

/** How a path differs between two snapshots. */
export const fileChangeSchema = z.object({
  path: z.string(),
  status: z.enum(["added", "modified", "deleted", "type_changed"]),
});

/** A path a restore did not touch although the target differs there, and why. */
export const keptPathSchema = z.object({
  path: z.string(),
  reason: z.enum([
    /** Something no snapshot holds (ignored, too large, unreadable) is at the path. */
    "unknown_file",
    /** A folder of the path is a symbolic link or a file no snapshot holds. */
    "blocked_parent",
    /** A folder holding files no snapshot knows is where the target has a file. */
    "folder_not_empty",
  ]),
});

/** What {@link CheckpointStore.restore} did, or with `dryRun` would do. */
export const restoreResultSchema = z.object({
  targetId: snapshotIdSchema,
  dryRun: z.boolean(),
  /**
   * The snapshot of the workspace taken just before the restore: restoring it undoes the
   * restore. Undefined for a dry run.
   */
  undoId: snapshotIdSchema.optional(),
  /** Files written (created or replaced), in path order. */
  written: z.array(z.string()),
  /** Files deleted, in path order. */
  deleted: z.array(z.string()),
  /** Paths left as they were, so nothing unknown to the snapshots is lost. */
  kept: z.array(keptPathSchema),
});

/** A snapshot id. */
export type SnapshotId = z.infer<typeof snapshotIdSchema>;
/** Why a file was left out of a snapshot. */
export type SkipReason = z.infer<typeof skipReasonSchema>;
/** A file a snapshot left out. */
export type SkippedFile = z.infer<typeof skippedFileSchema>;
/** What a snapshot returns. */
export type SnapshotResult = z.infer<typeof snapshotResultSchema>;
/** How one path differs between two snapshots. */
export type FileChange = z.infer<typeof fileChangeSchema>;
/** A path a restore left as it was. */
export type KeptPath = z.infer<typeof keptPathSchema>;
/** What a restore did or would do. */
export type RestoreResult = z.infer<typeof restoreResultSchema>;
