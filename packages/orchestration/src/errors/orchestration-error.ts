/**
 * The base of every error `@arbor/orchestration` throws: a stable `code` an app maps to a
 * status or a message without reading the text, and a static `isInstance()` that works
 * across duplicated copies of this package.
 */

const marker = Symbol.for("@arbor/orchestration.error");

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
export class OrchestrationError extends Error {
  readonly [marker] = true;

  /**
   * @param code - the stable code of the concrete error
   * @param message - what was wrong and what to do about it
   */
  constructor(
    readonly code: OrchestrationErrorCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = "OrchestrationError";
  }

  /** True for any error of this package, even from another copy of it. */
  static isInstance(value: unknown): value is OrchestrationError {
    return typeof value === "object" && value !== null && marker in value;
  }
}

/** True when `value` is an error of this package with `code`. */
export function hasOrchestrationCode(value: unknown, code: OrchestrationErrorCode): boolean {
  return OrchestrationError.isInstance(value) && value.code === code;
}
