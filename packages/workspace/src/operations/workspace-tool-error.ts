import { ArborError, arborErrorGuard } from "@arbor/session-store";

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
export class WorkspaceToolError extends ArborError {
  override readonly name = "WorkspaceToolError";
  /** A stable machine-readable reason. */
  declare readonly code: WorkspaceToolErrorCode;

  constructor(code: WorkspaceToolErrorCode, message: string) {
    super(code, message);
  }

  /** Whether a value is a {@link WorkspaceToolError}, also across package copies. */
  static override readonly isInstance = arborErrorGuard<WorkspaceToolError>(
    "@arbor/workspace:WorkspaceToolError",
  );
}
