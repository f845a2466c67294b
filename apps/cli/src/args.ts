import { parseArgs } from "node:util";

/** The parsed command line of `arbor`. */
export interface CliArgs {
  command: string | undefined;
  positionals: string[];
  help: boolean;
  version: boolean;
  debug: boolean;
}

/** A command line `arbor` cannot run; the message says what to type instead. */
export class CliUsageError extends Error {
  override readonly name = "CliUsageError";
}

/**
 * Parses `arbor`'s arguments (without the node and script paths).
 * @throws CliUsageError for an unknown option, naming it and pointing at `--help`
 */
export function parseCliArgs(argv: readonly string[]): CliArgs {
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        help: { type: "boolean", short: "h", default: false },
        version: { type: "boolean", short: "v", default: false },
        debug: { type: "boolean", default: false },
      },
    });
    const [command, ...rest] = positionals;
    return {
      command,
      positionals: rest,
      help: values.help,
      version: values.version,
      debug: values.debug,
    };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new CliUsageError(`${reason}. Run "arbor --help" to see the options.`);
  }
}
