const marker = Symbol.for("arbor.ttsr.rule-error");

/**
 * A stream rule that cannot be used: a pattern that is not a valid regular expression, a
 * scope that names no stream, a missing field. The message names the rule and what to fix.
 */
export class TtsrRuleError extends Error {
  override readonly name = "TtsrRuleError";
  /** Stable code, kept across versions so callers can branch on it. */
  readonly code = "ttsr_invalid_rule";
  readonly [marker] = true;

  /**
   * @param ruleName the rule's name, or the file it came from when it has none yet
   * @param message what was wrong and what to do about it
   */
  constructor(
    readonly ruleName: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`rule "${ruleName}": ${message}`, options);
  }

  /** True for a `TtsrRuleError`, even one created by another copy of this package. */
  static isInstance(error: unknown): error is TtsrRuleError {
    return typeof error === "object" && error !== null && marker in error;
  }
}
