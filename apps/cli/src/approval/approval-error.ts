const marker = Symbol.for("arbor.cli.approval-error");

/** The stable codes of {@link ApprovalError}. */
export type ApprovalErrorCode =
  /** `approvals.json` is not JSON, or not the documented shape. */
  | "invalid_approval_file"
  /** `approvals.json` could not be read or written. */
  | "approval_file_io"
  /** `--approval` names no mode. */
  | "invalid_approval_mode";

/**
 * Approvals could not be used: a broken `approvals.json` (the message names the file and
 * the field) or an unknown mode. Use {@link ApprovalError.isInstance}.
 */
export class ApprovalError extends Error {
  override readonly name = "ApprovalError";
  readonly [marker] = true;

  constructor(
    readonly code: ApprovalErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** Tells whether a value is an {@link ApprovalError}, from any copy of this module. */
  static isInstance(value: unknown): value is ApprovalError {
    return (
      typeof value === "object" &&
      value !== null &&
      (value as Record<symbol, unknown>)[marker] === true
    );
  }
}
