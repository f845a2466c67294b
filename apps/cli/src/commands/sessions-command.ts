import { dirname, resolve } from "node:path";
import { createTitleGenerator } from "@arbor/orchestration";
import {
  deleteSession,
  listSessions,
  openSessionFile,
  type SessionInfo,
} from "@arbor/session-store";
import { type CliContext, selectModel } from "../cli-context.js";
import { CliError } from "../cli-error.js";
import { safeFileName, writeExportFile } from "../export/index.js";
import { terminalSafe } from "../output/index.js";
import { sessionDirFor } from "../paths.js";
import {
  asCliError,
  findSessionFile,
  findStoreSessionFile,
  listAllSessions,
  openSessionForWriting,
} from "../session-locator.js";
import { shortIds } from "../short-ids.js";
import { layoutTree, renderTreeText } from "../tree-lines.js";
import { askYesNo } from "../trust/index.js";
import { sessionHtmlPage } from "./session-html-page.js";

const SUBCOMMANDS = ["list", "show", "delete", "title", "regenerate-title", "export"] as const;

function formatDate(date: Date): string {
  return date.toISOString().slice(0, 16).replace("T", " ");
}

/**
 * The list `arbor sessions list` prints: a header row, then one safe line per session
 * (every field from a file is escaped), each id shortened to the shortest prefix of at
 * least 8 characters unique among the listed sessions.
 */
export function formatList(sessions: readonly SessionInfo[], here: boolean): string {
  if (sessions.length === 0) {
    return here
      ? 'No sessions in this directory yet. Start one with "arbor"; "arbor sessions list" shows all.\n'
      : 'No sessions yet. Start one with "arbor" or "arbor demo".\n';
  }
  // Ids as short as they can be while unique among those listed (as git shows hashes).
  const short = shortIds(sessions.map((s) => s.id));
  const ids = sessions.map((s) => terminalSafe(short.get(s.id) ?? s.id));
  const width = Math.max(2, ...ids.map((id) => id.length));
  const header = `${"ID".padEnd(width)}  ${"MODIFIED".padEnd(16)}  MSGS  TITLE  FOLDER`;
  const rows = sessions.map(
    (s, index) =>
      `${(ids[index] ?? "").padEnd(width)}  ${formatDate(s.modified)}  ${String(s.messageCount).padStart(4)}  ${terminalSafe(s.title ?? "(untitled)")}  ${terminalSafe(s.cwd)}`,
  );
  return `${[header, ...rows].join("\n")}\n`;
}

function requireId(context: CliContext, sub: string): string {
  const id = context.args.positionals[1];
  if (!id) {
    throw new CliError(`arbor sessions ${sub} needs a session id.`, {
      hint: 'Run "arbor sessions list" to see the ids.',
      exitCode: 2,
    });
  }
  return id;
}

/**
 * Whether `sessions delete` may go ahead: `--yes`, or a yes typed on the terminal. Without
 * a terminal and without `--yes` it refuses, rather than deleting unasked.
 * @throws CliError (exit code 2) when there is no terminal to ask on
 */
async function confirmDelete(context: CliContext, path: string): Promise<boolean> {
  const { io, args } = context;
  if (args.yes) return true;
  if (io.stdin.isTTY !== true) {
    throw new CliError(
      "arbor sessions delete asks before deleting, and there is no terminal to ask on.",
      {
        hint: `Pass --yes to delete without asking: arbor sessions delete ${args.positionals[1] ?? "<id>"} --yes`,
        exitCode: 2,
      },
    );
  }
  const session = await readOnlySession(path);
  const title = session.getTitle() ?? "(untitled)";
  await session.close();
  return askYesNo(
    io.stdin,
    io.stderr,
    terminalSafe(`Delete ${title} (${path})? This cannot be undone. [y/N] `, { multiline: true }),
  );
}

async function readOnlySession(path: string) {
  try {
    return await openSessionFile(path, { readOnly: true });
  } catch (error) {
    throw asCliError(error);
  }
}

/** `arbor sessions …`: list, show, delete, title, regenerate-title and export sessions. */
export async function sessionsCommand(context: CliContext): Promise<number> {
  const { io, args, paths, printer } = context;
  const sub = args.positionals[0] ?? "list";
  if (!(SUBCOMMANDS as readonly string[]).includes(sub)) {
    throw new CliError(`"${sub}" is not a sessions command.`, {
      hint: `Use one of: ${SUBCOMMANDS.join(", ")} ("arbor sessions --help").`,
      exitCode: 2,
    });
  }
  if (sub === "list") {
    const sessions = args.here
      ? await listSessions(sessionDirFor(paths, io.cwd))
      : await listAllSessions(paths, io.cwd);
    sessions.sort((a, b) => b.modified.getTime() - a.modified.getTime());
    if (args.json) printer.json(sessions);
    else printer.out(formatList(sessions, args.here));
    return 0;
  }
  const id = requireId(context, sub);
  // Deleting is final: only a session file of the store qualifies.
  const path =
    sub === "delete"
      ? await findStoreSessionFile(paths, io.cwd, id)
      : await findSessionFile(paths, io.cwd, id);
  switch (sub) {
    case "show": {
      const session = await readOnlySession(path);
      if (args.json) {
        printer.json({
          id: session.id,
          path,
          title: session.getTitle() ?? null,
          leafId: session.getLeafId(),
          header: session.getHeader(),
          entries: session.getEntries(),
        });
        await session.close();
        return 0;
      }
      const title = terminalSafe(session.getTitle() ?? "(untitled)");
      printer.out(`${title}\n${terminalSafe(path)}\n\n${renderTreeText(layoutTree(session))}\n`);
      await session.close();
      return 0;
    }
    case "delete":
      if (!(await confirmDelete(context, path))) {
        printer.err("Kept the session: nothing was deleted.\n");
        return 1;
      }
      await deleteSession(path, { dir: dirname(path) }).catch((error: unknown) => {
        throw asCliError(error);
      });
      printer.out(`Deleted ${terminalSafe(path)}\n`);
      return 0;
    case "title": {
      const text = args.positionals.slice(2).join(" ").trim();
      if (!text) {
        const session = await readOnlySession(path);
        printer.out(`${terminalSafe(session.getTitle() ?? "(untitled)")}\n`);
        await session.close();
        return 0;
      }
      const session = await openSessionForWriting(path);
      try {
        await session.setTitle(text);
        printer.out(`${terminalSafe(session.getTitle() ?? "")}\n`);
      } finally {
        await session.close();
      }
      return 0;
    }
    case "regenerate-title": {
      const { model } = await selectModel(context);
      const session = await openSessionForWriting(path);
      try {
        const outcome = await session.regenerateTitle(createTitleGenerator(model));
        if (outcome.error !== undefined) {
          const reason =
            outcome.error instanceof Error ? outcome.error.message : String(outcome.error);
          throw new CliError(`the title was not changed: ${reason}.`, {
            hint: "Check the provider settings, or set a title with arbor sessions title <id> <text>.",
          });
        }
        printer.out(`${terminalSafe(outcome.title ?? "")}\n`);
      } finally {
        await session.close();
      }
      return 0;
    }
    default: {
      const { id, html } = await sessionHtmlPage(context, path);
      // The default name comes from the session's id, so it is made a plain file name.
      const out = resolve(io.cwd, args.positionals[2] ?? `${safeFileName(id)}.html`);
      await writeExportFile(out, html, {
        ...(args.force ? { force: true } : {}),
        forceHint: "--force",
      });
      printer.out(`${terminalSafe(out)}\n`);
      return 0;
    }
  }
}
