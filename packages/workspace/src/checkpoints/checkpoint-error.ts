import { ArborError, arborErrorGuard } from "@arbor/session-store";

/** Why a checkpoint operation failed. */
export type CheckpointErrorCode =
  /** The `git` program could not be run. */
  | "git_unavailable"
  /** The workspace folder does not exist or is not a folder. */
  | "workspace_missing"
  /** The id names no snapshot of this store. */
  | "unknown_snapshot"
  /** No checkpoint of the session knows the files of the entry asked for. */
  | "no_checkpoint"
  /** Another process is changing this store right now. */
  | "busy"
  /** A file could not be written or deleted (permissions, a full disk); see `path`. */
  | "restore_failed"
  /** git itself failed; the message holds what it said. */
  | "git_failed";

/**
 * A checkpoint operation failed. The message says what went wrong and what to do; `path`
 * names the workspace file involved, when there is one.
 */
export class CheckpointError extends ArborError {
  override readonly name = "CheckpointError";
  /** A stable machine-readable reason. */
  declare readonly code: CheckpointErrorCode;
  /** The workspace path involved, relative and `/`-separated. */
  readonly path: string | undefined;

  constructor(
    code: CheckpointErrorCode,
    message: string,
    options: { path?: string; cause?: unknown } = {},
  ) {
    super(code, message, options.cause === undefined ? undefined : { cause: options.cause });
    this.path = options.path;
  }

  /** Whether a value is a {@link CheckpointError}, also across package copies. */
  static override readonly isInstance = arborErrorGuard<CheckpointError>(
    "@arbor/workspace:CheckpointError",
  );
}
