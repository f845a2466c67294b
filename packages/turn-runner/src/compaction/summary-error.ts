import type { ModelErrorKind } from "@arbor/providers";
import { ArborError, arborErrorGuard } from "@arbor/session-store";

/** Why a summary or title could not be made. */
export type SummaryErrorCode = "model_error" | "empty_summary" | "aborted";

/**
 * A model call made for a summary or a title failed. The session is left as it was: no
 * compaction, branch summary or title is stored.
 */
export class SummaryError extends ArborError {
  override readonly name = "SummaryError";
  declare readonly code: SummaryErrorCode;
  /** The classified provider error, when the model reported one. */
  readonly kind: ModelErrorKind | undefined;

  constructor(code: SummaryErrorCode, message: string, kind?: ModelErrorKind) {
    super(code, message);
    this.kind = kind;
  }

  /** Tells whether a value is a {@link SummaryError}, even from another copy of the package. */
  static override readonly isInstance = arborErrorGuard<SummaryError>(
    "@arbor/turn-runner:SummaryError",
  );
}
