import { ArborError, arborErrorGuard } from "@arbor/session-store";

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
export class ApprovalError extends ArborError {
  override readonly name = "ApprovalError";
  declare readonly code: ApprovalErrorCode;

  constructor(code: ApprovalErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }

  /** Tells whether a value is an {@link ApprovalError}, from any copy of this module. */
  static override readonly isInstance = arborErrorGuard<ApprovalError>("@arbor/cli:ApprovalError");
}
