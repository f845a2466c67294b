import { ArborError, arborErrorGuard } from "@arbor/session-store";

/**
 * A stream rule that cannot be used: a pattern that is not a valid regular expression, a
 * scope that names no stream, a missing field. The message names the rule and what to fix.
 */
export class TtsrRuleError extends ArborError {
  override readonly name = "TtsrRuleError";
  /** Stable code, kept across versions so callers can branch on it. */
  declare readonly code: "ttsr_invalid_rule";

  /**
   * @param ruleName the rule's name, or the file it came from when it has none yet
   * @param message what was wrong and what to do about it
   */
  constructor(
    readonly ruleName: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super("ttsr_invalid_rule", `rule "${ruleName}": ${message}`, options);
  }

  /** True for a `TtsrRuleError`, even one created by another copy of this package. */
  static override readonly isInstance = arborErrorGuard<TtsrRuleError>("@arbor/ttsr:TtsrRuleError");
}

/**
 * A rule condition that is a valid regular expression but is refused: it can match the
 * empty string, or it needs a backtracking engine that hostile input could freeze (see
 * `judgePattern`). The message names the rule, the condition and the reason.
 */
export class TtsrPatternRejectedError extends ArborError {
  override readonly name = "TtsrPatternRejectedError";
  /** Stable code, kept across versions so callers can branch on it. */
  declare readonly code: "ttsr_pattern_rejected";

  /**
   * @param ruleName the rule the condition belongs to
   * @param pattern the condition as written
   * @param rejection why: `matches-empty`, `back-reference`, `backtracking` or `too-large`
   * @param reason the explanation shown to the user
   */
  constructor(
    readonly ruleName: string,
    readonly pattern: string,
    readonly rejection: "matches-empty" | "back-reference" | "backtracking" | "too-large",
    reason: string,
  ) {
    super(
      "ttsr_pattern_rejected",
      `rule "${ruleName}": condition ${pattern} is rejected: it ${reason}`,
    );
  }

  /** True for a `TtsrPatternRejectedError`, even one created by another copy of this package. */
  static override readonly isInstance = arborErrorGuard<TtsrPatternRejectedError>(
    "@arbor/ttsr:TtsrPatternRejectedError",
  );
}
