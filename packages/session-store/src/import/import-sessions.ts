import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import type { SessionStore } from "../store/session-store.js";
import { readClaudeCodeFile } from "./claude-code-reader.js";
import { readCodexFile } from "./codex-reader.js";
import { detectSource } from "./detect-source.js";
import { SessionImportError } from "./import-errors.js";
import type { ImportedLog, ImportReport, ImportSource } from "./imported-log.js";
import { describeIoError } from "./jsonl-lines.js";
import {
  findOpencodeDatabase,
  opencodeDatabaseSessions,
  type ReadOpencodeDatabaseOptions,
} from "./opencode-database.js";
import { findOpencodeStorage, readOpencodeStorage } from "./opencode-reader.js";
import { isSqliteFile } from "./sqlite-file.js";
import { importIntoStore, type StoreImportResult } from "./store-import.js";

/** How long a source must be unchanged before its open entries are stored, by default. */
const DEFAULT_SETTLE_MS = 60_000;

/** One session imported (or, with `dryRun`, that would be). */
export interface ImportedSessionResult extends StoreImportResult {
  tool: ImportSource;
  /** The source file (opencode: the session's info file). */
  path: string;
  /** The session this one is a sidechain or fork of, if any. */
  parentSession: string | undefined;
  report: ImportReport;
}

/** A source file that was not imported, and why. */
export interface SkippedSource {
  path: string;
  reason: string;
  /** The error's `code` when an error says why. */
  code?: string;
}

/** What {@link importSessions} did. */
export interface ImportSummary {
  sessions: ImportedSessionResult[];
  skipped: SkippedSource[];
}

/** Progress over the files of a folder. */
export interface ImportProgress {
  done: number;
  total: number;
  path: string;
}

/** Options of {@link importSessions}. */
export interface ImportSessionsOptions {
  /** The store the sessions go into. */
  store: SessionStore;
  /** The tool that wrote the source; `auto` (default) tells from each file. */
  from?: ImportSource | "auto";
  /** Read and report everything, write nothing. */
  dryRun?: boolean;
  tenant?: string;
  /** Called after each source file. */
  onProgress?: (progress: ImportProgress) => void;
  /** Longest source line kept, in bytes (longer ones become raw entries). */
  maxLineBytes?: number;
  /** Largest opencode database read, in bytes (see {@link ReadOpencodeDatabaseOptions}). */
  maxDatabaseBytes?: number;
  /** Loads sql.js for opencode's database; the installed package by default. */
  loadSqlJs?: ReadOpencodeDatabaseOptions["loadSqlJs"];
  /**
   * A source changed less than this long ago (ms) is taken as still being written: the
   * entries at its end that its next lines may still change (an answer written over several
   * lines, one opencode has not completed) are held back until they are complete or the
   * source has been quiet this long, so following a live log appends instead of rewriting.
   * Default 60 s; 0 stores everything at once.
   */
  settleMs?: number;
  /** The clock `settleMs` is measured on (a seam for tests). Default `Date.now`. */
  now?: () => number;
}

/**
 * Imports a session file, or every session file under a folder (Claude Code's projects
 * folder, Codex's sessions folder), or opencode's sessions (its data folder, its
 * `opencode.db` database or its older storage folder) into a store. Files that are not
 * sessions are skipped with the reason; no file's problem stops the others.
 * @throws SessionImportError when `path` itself cannot be read, or is one file that cannot
 *   be imported
 * @example
 * const summary = await importSessions("/home/me/.claude/projects", { store });
 */
export async function importSessions(
  path: string,
  options: ImportSessionsOptions,
): Promise<ImportSummary> {
  const info = await stat(path).catch((error: unknown) => {
    throw new SessionImportError(path, "unreadable", describeIoError(error), { cause: error });
  });
  const summary: ImportSummary = { sessions: [], skipped: [] };
  const from = options.from ?? "auto";
  if (from === "opencode" || from === "auto") {
    const database = info.isDirectory()
      ? await findOpencodeDatabase(path)
      : (await isSqliteFile(path))
        ? path
        : undefined;
    if (database) {
      await importDatabase(database, summary, options);
      return summary;
    }
  }
  if (info.isDirectory() && (from === "opencode" || from === "auto")) {
    const storage = await findOpencodeStorage(path);
    if (storage) {
      const logs = await readOpencodeStorage(storage);
      for (const [i, log] of logs.entries()) {
        await store(log, summary, options);
        options.onProgress?.({
          done: i + 1,
          total: logs.length,
          path: log.header.importedFrom.path,
        });
      }
      return summary;
    }
    if (from === "opencode") {
      throw new SessionImportError(
        path,
        "not_recognized",
        "it is not opencode's data folder (no opencode.db and no storage/session/ folder in it)",
      );
    }
  }
  if (!info.isDirectory()) {
    if (from === "opencode") {
      throw new SessionImportError(
        path,
        "not_recognized",
        "opencode sessions are imported from its data folder, its opencode.db database or its storage folder",
      );
    }
    const logs = await readFile(path, from, options.maxLineBytes);
    const live = await isLive([path], options);
    for (const log of logs) await store(log, summary, options, live);
    options.onProgress?.({ done: 1, total: 1, path });
    return summary;
  }
  const files = await jsonlFiles(path);
  for (const [i, file] of files.entries()) {
    try {
      const logs = await readFile(file, from, options.maxLineBytes);
      const live = await isLive([file], options);
      for (const log of logs) await store(log, summary, options, live);
    } catch (error) {
      // One file's failure (even an unexpected one, such as a session too large for one
      // string) is reported with its reason and never stops the others.
      const code = SessionImportError.isInstance(error) ? error.code : "import_failed";
      const reason = error instanceof Error ? error.message : String(error);
      summary.skipped.push({ path: file, reason, code });
    }
    options.onProgress?.({ done: i + 1, total: files.length, path: file });
  }
  return summary;
}

/** Imports every session of opencode's database, one session in memory at a time. */
async function importDatabase(
  path: string,
  summary: ImportSummary,
  options: ImportSessionsOptions,
): Promise<void> {
  let total = 0;
  let done = 0;
  const sessions = opencodeDatabaseSessions(path, {
    ...(options.maxDatabaseBytes === undefined
      ? {}
      : { maxDatabaseBytes: options.maxDatabaseBytes }),
    ...(options.loadSqlJs ? { loadSqlJs: options.loadSqlJs } : {}),
    onSessionCount: (count) => {
      total = count;
    },
  });
  // opencode writes recent changes to the write-ahead log beside the database first.
  const live = await isLive([path, `${path}-wal`], options);
  for await (const log of sessions) {
    await store(log, summary, options, live);
    options.onProgress?.({ done: ++done, total, path });
  }
}

/** Whether one of the files changed less than `settleMs` ago: the source is being written. */
async function isLive(paths: string[], options: ImportSessionsOptions): Promise<boolean> {
  const settleMs = options.settleMs ?? DEFAULT_SETTLE_MS;
  if (settleMs <= 0) return false;
  const now = (options.now ?? Date.now)();
  for (const path of paths) {
    const info = await stat(path).catch(() => undefined);
    if (info && now - info.mtimeMs < settleMs) return true;
  }
  return false;
}

async function readFile(
  path: string,
  from: ImportSource | "auto",
  maxLineBytes?: number,
): Promise<ImportedLog[]> {
  const tool = from === "auto" ? await detectSource(path) : from;
  const options = maxLineBytes === undefined ? {} : { maxLineBytes };
  if (tool === "claude-code") return readClaudeCodeFile(path, options);
  if (tool === "codex") return [await readCodexFile(path, options)];
  throw new SessionImportError(
    path,
    "not_recognized",
    "it is not a Claude Code or Codex session file",
  );
}

async function store(
  log: ImportedLog,
  summary: ImportSummary,
  options: ImportSessionsOptions,
  live = false,
): Promise<void> {
  const result = await importIntoStore(options.store, log, {
    ...(live ? { holdBackOpen: true } : {}),
    ...(options.dryRun ? { dryRun: true } : {}),
    ...(options.tenant === undefined ? {} : { tenant: options.tenant }),
  });
  summary.sessions.push({
    ...result,
    tool: log.header.importedFrom.tool,
    path: log.header.importedFrom.path,
    parentSession: log.header.parentSession,
    report: log.report,
  });
}

/** Every `*.jsonl` file under a folder, sorted, without following symbolic links. */
async function jsonlFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (folder: string): Promise<void> => {
    const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile() && entry.name.endsWith(".jsonl")) found.push(path);
    }
  };
  await walk(dir);
  return found;
}

/**
 * Where each tool keeps its sessions by default, under a home folder: Claude Code
 * `~/.claude/projects`, Codex `~/.codex/sessions`, opencode its data folder
 * `~/.local/share/opencode` (holding `opencode.db`, and `storage/` before opencode 1.2).
 */
export function defaultImportLocation(tool: ImportSource, home: string): string {
  switch (tool) {
    case "claude-code":
      return join(home, ".claude", "projects");
    case "codex":
      return join(home, ".codex", "sessions");
    case "opencode":
      return join(home, ".local", "share", "opencode");
  }
}
