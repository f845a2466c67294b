/**
 * The base of every error `@arbor/orchestration` throws: a stable `code` an app maps to a
 * status or a message without reading the text, and a static `isInstance()` that works
 * across duplicated copies of this package.
 */
import { ArborError, arborErrorGuard } from "@arbor/session-store";

/** The stable codes of the errors this package throws. */
export const ORCHESTRATION_ERROR_CODES = [
  "invalid_agent_definition",
  "unknown_provider",
  "missing_api_key",
  "invalid_host_options",
  "child_run_refused",
] as const;

/** One of {@link ORCHESTRATION_ERROR_CODES}. */
export type OrchestrationErrorCode = (typeof ORCHESTRATION_ERROR_CODES)[number];

/** Base class of this package's errors; catch it to handle them all. */
export class OrchestrationError extends ArborError {
  declare readonly code: OrchestrationErrorCode;

  /**
   * @param code - the stable code of the concrete error
   * @param message - what was wrong and what to do about it
   */
  constructor(code: OrchestrationErrorCode, message: string, options?: ErrorOptions) {
    super(code, message, options);
    this.name = "OrchestrationError";
  }

  /** True for any error of this package, even from another copy of it. */
  static override readonly isInstance = arborErrorGuard<OrchestrationError>(
    "@arbor/orchestration:OrchestrationError",
  );
}
