import { parseArgs } from "node:util";
import { ArborError, arborErrorGuard } from "@arbor/session-store";

/** The parsed command line of `arbor`. */
export interface CliArgs {
  command: string | undefined;
  positionals: string[];
  help: boolean;
  version: boolean;
  debug: boolean;
  /** `--json`: print the result object instead of the streamed answer. */
  json: boolean;
  /** `--continue`: resume the newest session of this directory. */
  continue: boolean;
  /** `-r, --resume`: pick the session to resume from a list of this directory's. */
  resume: boolean;
  /** `--session <id|path>`: resume this session. */
  session?: string;
  /** `--provider <name>`: a configured provider. */
  provider?: string;
  /** `--model <id>`: the model of the provider. */
  model?: string;
  /** `--trust-project`: load the project's own extensions this once, without asking. */
  trustProject: boolean;
  /** `-p, --print`: one prompt, the answer on stdout, then exit (print mode). */
  print: boolean;
  /** `--output-format text|json|stream-json` (print mode). */
  outputFormat?: string;
  /** `--system-prompt <text>`: replaces the configured system prompt for this run. */
  systemPrompt?: string;
  /** `--append-system-prompt <text>`: appended to the system prompt for this run. */
  appendSystemPrompt?: string;
  /** `--thinking <level>`: the reasoning level of this run. */
  thinking?: string;
  /** `--max-turns <n>`: turns before the run stops. */
  maxTurns?: string;
  /** `--no-session`: keep the session in memory; nothing is stored. */
  noSession: boolean;
  /** `--here`: `sessions list` shows only the sessions of this directory. */
  here: boolean;
  /** `--yes`: `sessions delete` does not ask. */
  yes: boolean;
  /** `--approval <mode>`: what the model may do without asking. */
  approval?: string;
  /** `--force`: overwrite an existing file (`sessions export`). */
  force?: boolean;
  /** `--from <tool>`: the tool whose sessions `import` reads. */
  from?: string;
  /** `--dry-run`: `import` reports what it would do and writes nothing. */
  dryRun?: boolean;
  /** `--format html|md|jsonl`: what `export` writes. */
  format?: string;
  /** `--agent <file>`: `run` runs this agent file with its advisors, router, handoff and sub-agents. */
  agent?: string;
  /** `--with-children`: `sessions export` and `export` embed the child sessions an orchestration started. */
  withChildren?: boolean;
  /** `--worktree <dir>`: `fork` puts the entry's files in a git worktree (or a folder) there. */
  worktree?: string;
  /** `--code`, `--conversation` or `--both`: what `rewind` moves. */
  rewindTo?: "code" | "conversation" | "both";
}

function optional<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: string };
}

/** What `--code`, `--conversation` and `--both` ask `rewind` to move (at most one of them). */
function rewindTarget(values: {
  code?: boolean | undefined;
  conversation?: boolean | undefined;
  both?: boolean | undefined;
}): Pick<CliArgs, "rewindTo"> {
  const chosen = (["code", "conversation", "both"] as const).filter((name) => values[name]);
  if (chosen.length > 1) {
    throw new Error(`--${chosen.join(" and --")} cannot be given together; pick one`);
  }
  return chosen[0] ? { rewindTo: chosen[0] } : {};
}

/** A command line `arbor` cannot run; the message says what to type instead. */
export class CliUsageError extends ArborError {
  override readonly name = "CliUsageError";
  declare readonly code: "cli_usage";

  /** @param message - what was wrong and what to type instead */
  constructor(message: string) {
    super("cli_usage", message);
  }

  /** Whether a value is a {@link CliUsageError}, also across package copies. */
  static override readonly isInstance = arborErrorGuard<CliUsageError>("@arbor/cli:CliUsageError");
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
        json: { type: "boolean", default: false },
        "trust-project": { type: "boolean", default: false },
        force: { type: "boolean", short: "f" },
        from: { type: "string" },
        "dry-run": { type: "boolean" },
        format: { type: "string" },
        agent: { type: "string" },
        "with-children": { type: "boolean" },
        worktree: { type: "string" },
        code: { type: "boolean" },
        conversation: { type: "boolean" },
        both: { type: "boolean" },
        continue: { type: "boolean", short: "c", default: false },
        resume: { type: "boolean", short: "r", default: false },
        session: { type: "string", short: "s" },
        provider: { type: "string" },
        model: { type: "string", short: "m" },
        approval: { type: "string" },
        print: { type: "boolean", short: "p", default: false },
        "output-format": { type: "string" },
        "system-prompt": { type: "string" },
        "append-system-prompt": { type: "string" },
        thinking: { type: "string" },
        "max-turns": { type: "string" },
        "no-session": { type: "boolean", default: false },
        here: { type: "boolean", default: false },
        yes: { type: "boolean", short: "y", default: false },
      },
    });
    const [command, ...rest] = positionals;
    return {
      command,
      positionals: rest,
      help: values.help,
      version: values.version,
      debug: values.debug,
      json: values.json,
      trustProject: values["trust-project"],
      ...(values.force ? { force: true } : {}),
      ...(values.from !== undefined ? { from: values.from } : {}),
      ...(values["dry-run"] ? { dryRun: true } : {}),
      ...(values.format !== undefined ? { format: values.format } : {}),
      ...optional("agent", values.agent),
      ...(values["with-children"] ? { withChildren: true } : {}),
      ...rewindTarget(values),
      ...optional("worktree", values.worktree),
      continue: values.continue,
      resume: values.resume,
      ...(values.session !== undefined ? { session: values.session } : {}),
      ...(values.provider !== undefined ? { provider: values.provider } : {}),
      ...(values.model !== undefined ? { model: values.model } : {}),
      ...(values.approval !== undefined ? { approval: values.approval } : {}),
      print: values.print,
      noSession: values["no-session"],
      here: values.here,
      yes: values.yes,
      ...optional("outputFormat", values["output-format"]),
      ...optional("systemPrompt", values["system-prompt"]),
      ...optional("appendSystemPrompt", values["append-system-prompt"]),
      ...optional("thinking", values.thinking),
      ...optional("maxTurns", values["max-turns"]),
    };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new CliUsageError(`${reason}. Run "arbor --help" to see the options.`);
  }
}
