import { ArborError, arborErrorGuard } from "@arbor/session-store";

/**
 * An error `arbor` reports to the user: what went wrong and, in `hint`, what to do next.
 * The exit code says to scripts which kind of failure it was (2: usage, 1: everything else).
 */
export class CliError extends ArborError {
  override readonly name = "CliError";
  /** The stable code of every error `arbor` reports to the user. */
  declare readonly code: "arbor_cli_error";
  /** The next step for the user, printed under the message. */
  readonly hint: string | undefined;
  /** The process exit code. */
  readonly exitCode: number;

  constructor(
    message: string,
    options: { hint?: string; exitCode?: number; cause?: unknown } = {},
  ) {
    super(
      "arbor_cli_error",
      message,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.hint = options.hint;
    this.exitCode = options.exitCode ?? 1;
  }

  /** Whether a value is a {@link CliError}, also across package copies. */
  static override readonly isInstance = arborErrorGuard<CliError>("@arbor/cli:CliError");
}
