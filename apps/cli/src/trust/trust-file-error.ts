import { ArborError, arborErrorGuard } from "@arbor/session-store";

/** The stable codes of {@link TrustFileError}. */
export type TrustFileErrorCode =
  /** The trust file is not JSON, or not the documented shape. */
  | "invalid_trust_file"
  /** The trust file could not be read or written. */
  | "trust_file_io";

/**
 * The trust file (`trusted-projects.json` under Arbor's home) could not be used. The
 * message names the file and what is wrong; use {@link TrustFileError.isInstance}.
 */
export class TrustFileError extends ArborError {
  override readonly name = "TrustFileError";
  declare readonly code: TrustFileErrorCode;

  constructor(
    code: TrustFileErrorCode,
    readonly file: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
  }

  /** Tells whether a value is a {@link TrustFileError}, from any copy of this module. */
  static override readonly isInstance = arborErrorGuard<TrustFileError>(
    "@arbor/cli:TrustFileError",
  );
}
