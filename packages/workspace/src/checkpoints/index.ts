export { CheckpointError, type CheckpointErrorCode } from "./checkpoint-error.js";
export {
  CHECKPOINT_ENTRY_TYPE,
  type CheckpointEntryData,
  checkpointEntryDataSchema,
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
