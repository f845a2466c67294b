import { REASONING_LEVELS, type ReasoningLevel } from "@arbor/orchestration";
import type { CliContext } from "../cli-context.js";
import { CliError } from "../cli-error.js";
import type { RunOverrides } from "./open-run-host.js";
import { RUN_EXIT_CODES } from "./run-exit-code.js";

/** A wrong command line of a run (exit code 2), with what to type instead. */
export function usage(message: string, hint: string): CliError {
  return new CliError(message, { hint, exitCode: RUN_EXIT_CODES.usage });
}

/**
 * The run's overrides from the command line.
 * @throws CliError (exit code 2) for a thinking level or turn count that is not one
 */
export function runOverridesOf(context: CliContext): RunOverrides {
  const { args } = context;
  let thinking: ReasoningLevel | undefined;
  if (args.thinking !== undefined) {
    if (!(REASONING_LEVELS as readonly string[]).includes(args.thinking)) {
      throw usage(
        `--thinking ${JSON.stringify(args.thinking)} is not a reasoning level.`,
        `Use one of: ${REASONING_LEVELS.join(", ")}.`,
      );
    }
    thinking = args.thinking as ReasoningLevel;
  }
  let maxTurns: number | undefined;
  if (args.maxTurns !== undefined) {
    maxTurns = Number(args.maxTurns);
    if (!/^\d+$/.test(args.maxTurns) || maxTurns < 1 || maxTurns > 1000) {
      throw usage(
        `--max-turns ${JSON.stringify(args.maxTurns)} is not a number of turns.`,
        "Use a whole number from 1 to 1000.",
      );
    }
  }
  return {
    ...(args.systemPrompt !== undefined ? { systemPrompt: args.systemPrompt } : {}),
    ...(args.appendSystemPrompt !== undefined
      ? { appendSystemPrompt: args.appendSystemPrompt }
      : {}),
    ...(thinking !== undefined ? { thinking } : {}),
    ...(maxTurns !== undefined ? { maxTurns } : {}),
    ...(args.noSession ? { noSession: true } : {}),
  };
}
