const MARKER = Symbol.for("arbor.workspace.checkpoint-error");

/** Why a checkpoint operation failed. */
export type CheckpointErrorCode =
  /** The `git` program could not be run. */
  | "git_unavailable"
  /** The workspace folder does not exist or is not a folder. */
  | "workspace_missing"
  /** The id names no snapshot of this store. */
  | "unknown_snapshot"
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
export class CheckpointError extends Error {
  override readonly name = "CheckpointError";
  readonly [MARKER] = true;
  /** A stable machine-readable reason. */
  readonly code: CheckpointErrorCode;
  /** The workspace path involved, relative and `/`-separated. */
  readonly path: string | undefined;

  constructor(
    code: CheckpointErrorCode,
    message: string,
    options: { path?: string; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.path = options.path;
  }

  /** Whether a value is a {@link CheckpointError}, also across package copies. */
  static isInstance(value: unknown): value is CheckpointError {
    return typeof value === "object" && value !== null && MARKER in value;
  }
}
