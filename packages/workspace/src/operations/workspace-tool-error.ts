const MARKER = Symbol.for("arbor.workspace.workspace-tool-error");

/** Why a workspace tool refused a path. */
export type WorkspaceToolErrorCode =
  | "invalid_path"
  | "outside_workspace"
  | "not_found"
  | "symlink_loop"
  | "not_a_regular_file"
  | "not_a_directory"
  | "aborted"
  | "too_large"
  | "no_match"
  | "ambiguous_match"
  | "invalid_pattern"
  | "binary_file";

/**
 * A workspace tool (`read`, `write`, `edit`, `bash`, `grep`, `find`, `ls`) refused a call. The message names the path
 * as the model gave it and the reason; it never quotes what lies outside the workspace.
 */
export class WorkspaceToolError extends Error {
  override readonly name = "WorkspaceToolError";
  readonly [MARKER] = true;
  /** A stable machine-readable reason. */
  readonly code: WorkspaceToolErrorCode;

  constructor(code: WorkspaceToolErrorCode, message: string) {
    super(message);
    this.code = code;
  }

  /** Whether a value is a {@link WorkspaceToolError}, also across package copies. */
  static isInstance(value: unknown): value is WorkspaceToolError {
    return typeof value === "object" && value !== null && MARKER in value;
  }
}
