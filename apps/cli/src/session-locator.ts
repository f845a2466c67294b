import { readdir, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { SessionChoice as HostSessionChoice } from "@arbor/orchestration";
import {
  listSessions,
  openSessionFile,
  type Session,
  type SessionInfo,
  SessionStoreError,
} from "@arbor/session-store";
import { isChildSession } from "./agent-tree/child-session-filter.js";
import { CliError } from "./cli-error.js";
import { type ArborPaths, sessionDirFor } from "./paths.js";
import { assertInSessionsFolder } from "./session-file-check.js";

/** Whether a `--session` argument is a path rather than an id. */
function looksLikePath(value: string): boolean {
  return value.includes("/") || value.includes("\\") || value.endsWith(".jsonl");
}

/** Every session Arbor knows of: this directory's first, then the other directories'. */
export async function listAllSessions(paths: ArborPaths, cwd: string): Promise<SessionInfo[]> {
  const own = sessionDirFor(paths, cwd);
  const dirs = [own];
  try {
    for (const entry of await readdir(paths.sessionsRoot, { withFileTypes: true })) {
      const dir = join(paths.sessionsRoot, entry.name);
      if (entry.isDirectory() && dir !== own) dirs.push(dir);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const lists = await Promise.all(dirs.map((dir) => listSessions(dir)));
  return lists.flat();
}

/**
 * Finds a session by id, a unique id prefix, or a file path (pi's files too).
 * @returns the session file path
 * @throws CliError when nothing or more than one session matches
 */
export async function findSessionFile(
  paths: ArborPaths,
  cwd: string,
  idOrPath: string,
): Promise<string> {
  if (looksLikePath(idOrPath)) {
    const full = resolve(cwd, idOrPath);
    const info = await stat(full).catch(() => undefined);
    if (!info?.isFile()) {
      throw new CliError(`there is no session file at ${full}.`, {
        hint: 'Check the path; "arbor sessions list" shows the sessions Arbor stores.',
      });
    }
    return full;
  }
  const sessions = await listAllSessions(paths, cwd);
  const exact = sessions.find((session) => session.id === idOrPath);
  if (exact) return exact.path;
  if (idOrPath.length < MIN_PREFIX) {
    // One character names a sixteenth of all ids: too easy to act on the wrong session.
    throw new CliError(`"${idOrPath}" is too short to name a session: it is ambiguous.`, {
      hint: `Give at least ${MIN_PREFIX} characters of the id ("arbor sessions list" shows them).`,
      exitCode: 2,
    });
  }
  const matches = sessions.filter((session) => session.id.startsWith(idOrPath));
  const [only] = matches;
  if (matches.length === 1 && only) return only.path;
  if (matches.length > 1) {
    throw new CliError(`"${idOrPath}" matches ${matches.length} sessions:`, {
      hint: `${candidateLines(matches)}\nGive more characters of the id.`,
      exitCode: 2,
    });
  }
  throw new CliError(`there is no session with id "${idOrPath}".`, {
    hint: 'Run "arbor sessions list" to see the ids, or pass a session file path.',
  });
}

/** The shortest id prefix taken (a whole id of any length is always taken). */
const MIN_PREFIX = 2;

/** The most candidates an ambiguous id prefix lists. */
const MAX_CANDIDATES = 10;

/** One line per session an ambiguous prefix matches (newest first): id, date, title, folder. */
function candidateLines(matches: readonly SessionInfo[]): string {
  const newest = [...matches].sort((a, b) => b.modified.getTime() - a.modified.getTime());
  const lines = newest
    .slice(0, MAX_CANDIDATES)
    .map(
      (s) =>
        `  ${s.id}  ${s.modified.toISOString().slice(0, 16).replace("T", " ")}  ${s.title ?? "(untitled)"}  ${s.cwd}`,
    );
  if (newest.length > MAX_CANDIDATES) lines.push(`  … and ${newest.length - MAX_CANDIDATES} more`);
  return lines.join("\n");
}

/**
 * Finds a session like {@link findSessionFile}, and checks that it is a session file of
 * Arbor's store, for commands that change or remove it (`sessions delete`).
 * @throws CliError when nothing matches, or when the path is another kind of file, a
 * symbolic link, a directory or a file outside the sessions folder
 */
export async function findStoreSessionFile(
  paths: ArborPaths,
  cwd: string,
  idOrPath: string,
): Promise<string> {
  const path = await findSessionFile(paths, cwd, idOrPath);
  await assertInSessionsFolder(paths.sessionsRoot, path);
  return path;
}

/** Opens a session file for writing, turning store errors into messages with a next step. */
export async function openSessionForWriting(path: string): Promise<Session> {
  try {
    return await openSessionFile(path);
  } catch (error) {
    throw asCliError(error);
  }
}

/** What `--continue` and `--session` ask for. */
export interface SessionChoice {
  continue?: boolean;
  session?: string;
}

/**
 * The session a command works in, as the agent host takes it: `--session` (its file),
 * else with `--continue` the newest one of this directory (its file), else a new one.
 * @throws CliError when `--session` names nothing or more than one session
 */
export async function chooseSession(
  paths: ArborPaths,
  cwd: string,
  choice: SessionChoice,
): Promise<HostSessionChoice> {
  if (choice.session !== undefined) {
    return { sessionId: await findSessionFile(paths, cwd, choice.session) };
  }
  if (choice.continue) {
    // The newest session the user worked in: an agent file's child runs are not resumed alone.
    for (const info of await listSessions(sessionDirFor(paths, cwd))) {
      if (!(await isChildSession(info))) return { sessionId: info.path };
    }
  }
  return { create: { cwd } };
}

/** Turns a session-store error into a {@link CliError}; anything else passes through. */
export function asCliError(error: unknown): unknown {
  if (!SessionStoreError.isInstance(error)) return error;
  const hint =
    error.code === "session_locked"
      ? "Another arbor is using this session; close it there or start a new session."
      : error.code === "file_deleted"
        ? "The session file was removed while open; start a new session."
        : "Pick another session with --session, or start a new one without it.";
  return new CliError(error.message, { hint, cause: error });
}
