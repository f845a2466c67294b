/**
 * An error `arbor` reports to the user: what went wrong and, in `hint`, what to do next.
 * The exit code says to scripts which kind of failure it was (2: usage, 1: everything else).
 */
export class CliError extends Error {
  override readonly name = "CliError";
  /** A stable marker that survives duplicated copies of this package. */
  readonly code = "arbor_cli_error";
  /** The next step for the user, printed under the message. */
  readonly hint: string | undefined;
  /** The process exit code. */
  readonly exitCode: number;

  constructor(
    message: string,
    options: { hint?: string; exitCode?: number; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.hint = options.hint;
    this.exitCode = options.exitCode ?? 1;
  }

  /** Whether a value is a {@link CliError}, also across package copies. */
  static isInstance(value: unknown): value is CliError {
    return (
      typeof value === "object" &&
      value !== null &&
      (value as { code?: unknown }).code === "arbor_cli_error"
    );
  }
}
