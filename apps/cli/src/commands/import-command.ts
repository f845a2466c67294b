import { join, resolve } from "node:path";
import { FileSessionStore } from "@arbor/session-store";
import {
  defaultImportLocation,
  type ImportProgress,
  type ImportSource,
  importSessions,
  importSourceSchema,
  SessionImportError,
} from "@arbor/session-store/import";
import type { CliContext } from "../cli-context.js";
import { CliError } from "../cli-error.js";
import { terminalSafe } from "../output/index.js";
import { formatImportSummary } from "./import-summary.js";

const FROM_VALUES = ["auto", ...importSourceSchema.options] as const;

/**
 * `arbor import <file|dir> [--from claude-code|codex|opencode|auto] [--dry-run]`: imports
 * other tools' sessions into Arbor's store, with a progress bar over folders and a summary.
 * Without a path, `--from <tool>` reads that tool's default folder.
 */
export async function importCommand(context: CliContext): Promise<number> {
  const { io, args, paths, printer } = context;
  const from = parseFrom(args.from);
  const given = args.positionals[0];
  if (given === undefined && from === "auto") {
    throw new CliError("arbor import needs a file or folder, or --from with a tool.", {
      hint: "For example: arbor import --from claude-code, or arbor import ~/.codex/sessions.",
      exitCode: 2,
    });
  }
  const source =
    given !== undefined ? resolve(io.cwd, given) : defaultSource(from as ImportSource, context);
  const store = new FileSessionStore({ root: paths.sessionsRoot });
  const progress = io.stderr.isTTY ? progressBar(context) : undefined;
  try {
    const summary = await importSessions(source, {
      store,
      from,
      ...(args.dryRun ? { dryRun: true } : {}),
      ...(progress ? { onProgress: progress.update } : {}),
    });
    progress?.done();
    if (args.json) printer.json(summary);
    else printer.out(formatImportSummary(summary, args.dryRun === true));
    return summary.sessions.length === 0 && summary.skipped.length > 0 ? 1 : 0;
  } catch (error) {
    progress?.done();
    if (SessionImportError.isInstance(error)) {
      throw new CliError(error.message, {
        hint:
          given === undefined
            ? `Nothing was found at ${terminalSafe(source)}, the default place of ${from}; give the path instead.`
            : 'Give a Claude Code or Codex session file, a folder of them, or opencode\'s data folder, opencode.db or storage folder (see "arbor help import").',
        cause: error,
      });
    }
    throw error;
  } finally {
    await store.close();
  }
}

/**
 * A tool's default folder. opencode keeps its data under `$XDG_DATA_HOME/opencode` when
 * that is set, as it does itself.
 */
function defaultSource(tool: ImportSource, { io, paths }: CliContext): string {
  const xdg = io.env.XDG_DATA_HOME;
  if (tool === "opencode" && xdg) return join(resolve(io.cwd, xdg), "opencode");
  return defaultImportLocation(tool, paths.home);
}

function parseFrom(value: string | undefined): ImportSource | "auto" {
  if (value === undefined) return "auto";
  if ((FROM_VALUES as readonly string[]).includes(value)) return value as ImportSource | "auto";
  throw new CliError(`--from ${terminalSafe(value)} is not a tool arbor imports from.`, {
    hint: `Use one of: ${FROM_VALUES.join(", ")}.`,
    exitCode: 2,
  });
}

/**
 * A one-line progress bar on stderr, redrawn in place. It writes the carriage return and
 * erase-line codes itself (the printer would show them as escapes); the file name in it is
 * made terminal-safe.
 */
function progressBar({ io }: CliContext): {
  update: (p: ImportProgress) => void;
  done: () => void;
} {
  let drawn = false;
  return {
    update(p) {
      const width = 24;
      const filled = p.total === 0 ? width : Math.round((p.done / p.total) * width);
      const name = p.path.length > 40 ? `…${p.path.slice(-39)}` : p.path;
      io.stderr.write(
        `\r\x1b[2K[${"#".repeat(filled)}${" ".repeat(width - filled)}] ${p.done}/${p.total} ${terminalSafe(name)}`,
      );
      drawn = true;
    },
    done() {
      if (drawn) io.stderr.write("\r\x1b[2K");
    },
  };
}
