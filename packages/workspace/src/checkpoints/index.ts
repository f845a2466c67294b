// The `arbor.checkpoint` entry has its one schema with Arbor's other custom entries.
export {
  CHECKPOINT_CUSTOM_TYPE,
  type CheckpointEntryData,
  checkpointEntryDataSchema,
} from "@arbor/session-store";
export { CheckpointError, type CheckpointErrorCode } from "./checkpoint-error.js";
export {
  type FileChange,
  fileChangeSchema,
  type KeptPath,
  keptPathSchema,
  type RestoreResult,
  restoreResultSchema,
  type SkippedFile,
  type SkipReason,
  type SnapshotId,
  type SnapshotResult,
  skippedFileSchema,
  skipReasonSchema,
  snapshotIdSchema,
  snapshotResultSchema,
} from "./checkpoint-schema.js";
export {
  type CheckpointStore,
  type CheckpointStoreOptions,
  openCheckpointStore,
  type UnavailableCheckpointStore,
} from "./checkpoint-store.js";
export {
  type CheckpointRecord,
  type CodeRewind,
  DEFAULT_LISTED_PATHS,
  DEFAULT_WRITING_TOOLS,
  type SessionCheckpoints,
  type SessionCheckpointsOptions,
  sessionCheckpoints,
} from "./session-checkpoints.js";
