import { readFileSync } from "node:fs";
import { type CliArgs, CliUsageError, parseCliArgs } from "./args.js";
import { type CliIo, createCliContext } from "./cli-context.js";
import { CliError } from "./cli-error.js";
import { helpFor } from "./help-text.js";
import { CliPrinter, KnownSecrets } from "./output/index.js";

/** The version of this package, read from its package.json. */
export function cliVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  return pkg.version;
}

/** Starts the interactive app; the entry point passes it in so tests can leave ink out. */
export type InteractiveStarter = (context: ReturnType<typeof createCliContext>) => Promise<number>;

/**
 * Runs `arbor` with the given arguments and resolves with the exit code. Errors are printed
 * as a message and a next step; stack traces only with `--debug`.
 */
export async function main(
  argv: readonly string[],
  io: CliIo,
  interactive?: InteractiveStarter,
): Promise<number> {
  const debug = argv.includes("--debug");
  const secrets = new KnownSecrets(io.env);
  try {
    const args = parseCliArgs(argv);
    if (args.version) {
      io.stdout.write(`arbor ${cliVersion()}\n`);
      return 0;
    }
    const helpTopic = args.command === "help" ? (args.positionals[0] ?? "") : args.command;
    if (args.help || args.command === "help") {
      const text = helpFor(helpTopic);
      if (text === undefined) {
        throw new CliError(`there is no command "${helpTopic}".`, {
          hint: 'Run "arbor --help" to see the commands.',
          exitCode: 2,
        });
      }
      io.stdout.write(text);
      return 0;
    }
    const context = createCliContext(io, args, secrets);
    const print = printModeWords(args, io.stdin.isTTY === true);
    if (print !== undefined) {
      return await (await import("./commands/print-command.js")).printCommand(context, print);
    }
    switch (args.command) {
      case undefined:
        if (!interactive) throw new CliError("the interactive app is not available here.");
        return await interactive(context);
      // Commands load on demand, so --help and --version do not pay for the SDKs.
      case "run":
        if (args.agent !== undefined) {
          const { runAgentCommand } = await import("./commands/run-agent-command.js");
          return await runAgentCommand(context, args.agent);
        }
        return await (await import("./commands/run-command.js")).runCommand(context);
      case "sessions":
        return await (await import("./commands/sessions-command.js")).sessionsCommand(context);
      case "import":
        return await (await import("./commands/import-command.js")).importCommand(context);
      case "export":
        return await (await import("./commands/export-command.js")).exportCommand(context);
      case "rewind":
        return await (await import("./checkpoints/rewind-command.js")).rewindCommand(context);
      case "fork":
        return await (await import("./checkpoints/fork-command.js")).forkCommand(context);
      case "checkpoints":
        return await (await import("./checkpoints/rewind-command.js")).checkpointsCommand(context);
      case "demo":
        return await (await import("./commands/demo-command.js")).demoCommand(context);
      case "acp":
        return await (await import("./acp/acp-command.js")).acpCommand(context);
      default:
        throw new CliError(`"${args.command}" is not an arbor command.`, {
          hint: `Run "arbor --help" to see the commands, or arbor -p "${args.command}" to send it as a prompt.`,
          exitCode: 2,
        });
    }
  } catch (error) {
    return reportError(error, io, debug, secrets);
  }
}

/** The commands of `arbor`; any other first word starts print mode with a prompt. */
const COMMANDS = new Set([
  "run",
  "sessions",
  "import",
  "export",
  "demo",
  "acp",
  "help",
  "rewind",
  "checkpoints",
  "fork",
]);

/**
 * The prompt words when the command line asks for print mode, else undefined: `-p`/
 * `--print` or `--output-format`; a prompt in place of a command (`arbor "fix the
 * tests"`); or nothing at all with a piped stdin. A lone lowercase word stays a command
 * (a typo of one is reported, not sent to the model).
 */
export function printModeWords(args: CliArgs, stdinIsTerminal: boolean): string[] | undefined {
  const words = args.command === undefined ? [] : [args.command, ...args.positionals];
  if (args.command === "run") return args.outputFormat !== undefined ? args.positionals : undefined;
  if (args.print || args.outputFormat !== undefined) return words;
  if (args.command === undefined) return stdinIsTerminal ? undefined : [];
  if (COMMANDS.has(args.command)) return undefined;
  const lone = args.positionals.length === 0 && /^[a-z][a-z-]*$/.test(args.command);
  return lone ? undefined : words;
}

/**
 * Prints an error the way the user should see it and returns the exit code. Everything
 * printed goes through one {@link CliPrinter}: the known API keys are redacted and control
 * characters a message may quote (from a session, a file, a provider) are shown as escapes.
 */
export function reportError(
  error: unknown,
  io: CliIo,
  debug: boolean,
  secrets: KnownSecrets = new KnownSecrets(io.env),
): number {
  const printer = new CliPrinter(io, secrets);
  if (error instanceof CliUsageError) {
    printer.err(`arbor: ${error.message}\n`);
    return 2;
  }
  if (CliError.isInstance(error)) {
    printer.err(`arbor: ${error.message}\n`);
    if (error.hint) printer.err(`${error.hint}\n`);
    if (debug && error.cause instanceof Error) printer.err(`${error.cause.stack}\n`);
    return error.exitCode;
  }
  const message = error instanceof Error ? error.message : String(error);
  printer.err(`arbor: ${message}\n`);
  if (debug && error instanceof Error) printer.err(`${error.stack}\n`);
  else printer.err("Run again with --debug to see where it happened.\n");
  return 1;
}
