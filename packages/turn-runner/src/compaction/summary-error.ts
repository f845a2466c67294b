import type { ModelErrorKind } from "@arbor/providers";

/** Why a summary or title could not be made. */
export type SummaryErrorCode = "model_error" | "empty_summary" | "aborted";

/**
 * A model call made for a summary or a title failed. The session is left as it was: no
 * compaction, branch summary or title is stored.
 */
export class SummaryError extends Error {
  override readonly name = "SummaryError";
  readonly code: SummaryErrorCode;
  /** The classified provider error, when the model reported one. */
  readonly kind: ModelErrorKind | undefined;

  constructor(code: SummaryErrorCode, message: string, kind?: ModelErrorKind) {
    super(message);
    this.code = code;
    this.kind = kind;
  }

  /** Tells whether a value is a {@link SummaryError}, even from another copy of the package. */
  static isInstance(value: unknown): value is SummaryError {
    return value instanceof Error && value.name === "SummaryError" && "code" in value;
  }
}
