import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { SessionImportError } from "./import-errors.js";
import type { ImportedLog } from "./imported-log.js";
import { describeIoError } from "./jsonl-lines.js";
import { ImportedLogBuilder, parseObjectLine } from "./log-builder.js";
import {
  type OpencodeSession,
  opencodeMessageSchema,
  opencodePartSchema,
  opencodeSessionSchema,
} from "./opencode-files.js";
import {
  keepOpencodeRaw,
  type OpencodeMessageRecord,
  opencodeImportedLog,
} from "./opencode-log.js";
import { sqliteHeader } from "./sqlite-file.js";
import { applyWal } from "./sqlite-wal.js";
import { loadSqlJs, type SqlJsDatabase, type SqlJsLoader } from "./sqljs-loader.js";

/*
 * opencode's SQLite database (`opencode.db` in its data folder, `~/.local/share/opencode/`,
 * since opencode 1.2; the JSON storage folder before). The tables read, as opencode's first
 * database migration creates them (later migrations add columns this reader does not need):
 *   session(id, project_id, parent_id, slug, directory, title, version, …, time_created, …)
 *   message(id, session_id, time_created, time_updated, data)          -- data: JSON info
 *   part(id, message_id, session_id, time_created, time_updated, data) -- data: JSON part
 * `data` holds what the storage folder's files held, less the ids the row's columns carry.
 */

/** Columns each table must have for the reader to understand it. */
const REQUIRED_COLUMNS = {
  session: ["id"],
  message: ["id", "session_id", "data"],
  part: ["id", "message_id", "data"],
} as const;
/** Columns read when they are there (not every version has each one). */
const OPTIONAL_COLUMNS = {
  session: ["parent_id", "directory", "title", "version", "time_created"],
  message: ["time_created"],
  part: [],
} as const;
type Table = keyof typeof REQUIRED_COLUMNS;
/** Per table, the column list a query selects: the ones read, of those the table has. */
type Selected = Record<Table, string>;

/** The default largest database read: sql.js holds the whole file in memory. */
export const DEFAULT_MAX_DATABASE_BYTES = 512 * 1024 * 1024;

/** Options of {@link readOpencodeDatabase}. */
export interface ReadOpencodeDatabaseOptions {
  /**
   * Largest database file read, in bytes (sql.js holds the whole file in memory, so a larger
   * one is refused with `too_large` rather than exhausting it). Default 512 MiB.
   */
  maxDatabaseBytes?: number;
  /** Loads sql.js; the installed package by default. A seam for tests and bundlers. */
  loadSqlJs?: SqlJsLoader;
  /** Told how many sessions the database holds, before the first is read. */
  onSessionCount?: (count: number) => void;
}

/** Finds opencode's database in its data folder: `dir/opencode.db`, if it is a file. */
export async function findOpencodeDatabase(dir: string): Promise<string | undefined> {
  const path = join(dir, "opencode.db");
  const info = await stat(path).catch(() => undefined);
  return info?.isFile() ? path : undefined;
}

/**
 * Reads every session of opencode's SQLite database through sql.js (an optional peer
 * dependency). A row whose `data` is not JSON, or not of the expected shape, becomes a raw
 * custom entry of its session.
 * @throws SessionImportError `dependency_missing` without sql.js; `too_large` over
 *   `maxDatabaseBytes`; `not_recognized` for a file that is not a SQLite database, or a
 *   database without opencode's tables; `unsupported_version` when a table lacks a column
 *   read; `unreadable` for a truncated or damaged file
 * @example
 * for (const log of await readOpencodeDatabase(`${home}/.local/share/opencode/opencode.db`))
 *   await importIntoStore(store, log);
 */
export async function readOpencodeDatabase(
  path: string,
  options: ReadOpencodeDatabaseOptions = {},
): Promise<ImportedLog[]> {
  const logs: ImportedLog[] = [];
  for await (const log of opencodeDatabaseSessions(path, options)) logs.push(log);
  return logs;
}

/**
 * The sessions of opencode's database one at a time, so that only the database and one
 * session are held in memory. Throws as {@link readOpencodeDatabase} does, before the first.
 */
export async function* opencodeDatabaseSessions(
  path: string,
  options: ReadOpencodeDatabaseOptions = {},
): AsyncGenerator<ImportedLog> {
  const bytes = await readDatabaseFile(
    path,
    options.maxDatabaseBytes ?? DEFAULT_MAX_DATABASE_BYTES,
  );
  const sql = await loadSqlJs(path, options.loadSqlJs);
  const db = sqlite(path, () => new sql.Database(bytes));
  try {
    const selected = checkTables(path, db);
    const sessions = sqlite(path, () =>
      rows(db, `SELECT ${selected.session} FROM session ORDER BY id`),
    );
    options.onSessionCount?.(sessions.length);
    for (const row of sessions) {
      yield sqlite(path, () => sessionLog(path, db, selected, row));
    }
  } finally {
    db.close();
  }
}

async function readDatabaseFile(path: string, maxBytes: number): Promise<Uint8Array> {
  const info = await stat(path).catch((error: unknown) => {
    throw new SessionImportError(path, "unreadable", describeIoError(error), { cause: error });
  });
  if (!info.isFile()) throw new SessionImportError(path, "unreadable", "it is not a regular file");
  if (info.size === 0) throw new SessionImportError(path, "empty", "the file is empty");
  if (info.size > maxBytes) {
    throw new SessionImportError(
      path,
      "too_large",
      `the database is ${mebibytes(info.size)}, over the ${mebibytes(maxBytes)} read at once (the whole file is held in memory); raise maxDatabaseBytes to read it`,
    );
  }
  const bytes: Uint8Array = await readFile(path).catch((error: unknown) => {
    throw new SessionImportError(path, "unreadable", describeIoError(error), { cause: error });
  });
  const header = sqliteHeader(bytes);
  if (!header) {
    throw new SessionImportError(
      path,
      "not_recognized",
      "it is not a SQLite database (opencode keeps its sessions in opencode.db, in its data folder)",
    );
  }
  const expected = header.pageCount === undefined ? 0 : header.pageCount * header.pageSize;
  if (bytes.length < expected || bytes.length % header.pageSize !== 0) {
    throw new SessionImportError(
      path,
      "unreadable",
      `the database is truncated: its header says ${expected} bytes, the file has ${bytes.length}`,
    );
  }
  return withWriteAheadLog(path, bytes, header.pageSize, maxBytes - info.size);
}

/**
 * The database with the transactions opencode has committed to its write-ahead log
 * (`opencode.db-wal`) but not yet copied into the database, as SQLite reads it.
 */
async function withWriteAheadLog(
  path: string,
  bytes: Uint8Array,
  pageSize: number,
  maxBytes: number,
): Promise<Uint8Array> {
  const walPath = `${path}-wal`;
  const info = await stat(walPath).catch(() => undefined);
  if (!info?.isFile() || info.size === 0) return bytes;
  if (info.size > maxBytes) {
    throw new SessionImportError(
      path,
      "too_large",
      `the database and its write-ahead log are ${mebibytes(bytes.length + info.size)}, over the ${mebibytes(bytes.length + maxBytes)} read at once (the whole file is held in memory); raise maxDatabaseBytes to read them`,
    );
  }
  const wal = await readFile(walPath).catch((error: unknown) => {
    throw new SessionImportError(walPath, "unreadable", describeIoError(error), { cause: error });
  });
  // A log that is not one of this database's pages is one SQLite would not read either.
  return applyWal(bytes, wal, pageSize)?.bytes ?? bytes;
}

function checkTables(path: string, db: SqlJsDatabase): Selected {
  const tables = sqlite(path, () =>
    rows(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"),
  ).map((r) => String(r.name));
  const missing = Object.keys(REQUIRED_COLUMNS).filter((t) => !tables.includes(t));
  if (missing.length === Object.keys(REQUIRED_COLUMNS).length) {
    throw new SessionImportError(
      path,
      "not_recognized",
      `it is a SQLite database, but not opencode's: it has no session, message or part table (its tables: ${tables.join(", ") || "none"})`,
    );
  }
  if (missing.length > 0) {
    throw new SessionImportError(
      path,
      "unsupported_version",
      `it has no ${missing.join(" or ")} table; this is not a layout of opencode's database this reader knows`,
    );
  }
  const selected = {} as Selected;
  for (const table of Object.keys(REQUIRED_COLUMNS) as Table[]) {
    const required: readonly string[] = REQUIRED_COLUMNS[table];
    const columns = sqlite(path, () => rows(db, `PRAGMA table_info(${table})`)).map((r) =>
      String(r.name),
    );
    // Only the columns read: others (a session's diffs) may be large.
    selected[table] = [...required, ...OPTIONAL_COLUMNS[table].filter((c) => columns.includes(c))]
      .map((c) => `"${c}"`)
      .join(", ");
    const absent = required.filter((c) => !columns.includes(c));
    if (absent.length > 0) {
      throw new SessionImportError(
        path,
        "unsupported_version",
        `its ${table} table has no ${absent.join(", ")} column; this is not a layout of opencode's database this reader knows`,
      );
    }
  }
  return selected;
}

function sessionLog(
  path: string,
  db: SqlJsDatabase,
  selected: Selected,
  row: Record<string, unknown>,
): ImportedLog {
  const builder = new ImportedLogBuilder();
  const sessionId = String(row.id);
  const session = sessionInfo(row);
  const messages: OpencodeMessageRecord[] = [];
  const messageRows = rows(
    db,
    `SELECT ${selected.message} FROM message WHERE session_id = ? ORDER BY id`,
    [sessionId],
  );
  for (const message of messageRows) {
    const source = `message/${String(message.id)}`;
    const data = rowData(builder, source, message);
    if (data === undefined) continue;
    const created = typeof message.time_created === "number" ? message.time_created : undefined;
    const time = isRecord(data.time) ? data.time : {};
    const parsed = opencodeMessageSchema.safeParse({
      ...data,
      id: message.id,
      sessionID: sessionId,
      time: { ...(created === undefined ? {} : { created }), ...time },
    });
    if (!parsed.success) {
      keepOpencodeRaw(builder, source, String(message.data), "not an opencode message");
      continue;
    }
    const record: OpencodeMessageRecord = { info: parsed.data, parts: [], source };
    for (const part of rows(
      db,
      `SELECT ${selected.part} FROM part WHERE message_id = ? ORDER BY id`,
      [String(message.id)],
    )) {
      const partSource = `part/${String(part.id)}`;
      const partData = rowData(builder, partSource, part);
      if (partData === undefined) continue;
      const parsedPart = opencodePartSchema.safeParse({
        ...partData,
        id: part.id,
        sessionID: sessionId,
        messageID: message.id,
      });
      if (parsedPart.success) record.parts.push(parsedPart.data);
      else keepOpencodeRaw(builder, partSource, String(part.data), "not an opencode part");
    }
    messages.push(record);
  }
  return opencodeImportedLog({ sessionId, session, messages, builder, path });
}

/** A session row as the storage folder's session info (the database keeps it in columns). */
function sessionInfo(row: Record<string, unknown>): OpencodeSession | undefined {
  const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);
  const parsed = opencodeSessionSchema.safeParse({
    id: row.id,
    directory: text(row.directory),
    title: text(row.title),
    parentID: text(row.parent_id),
    version: text(row.version),
    time: typeof row.time_created === "number" ? { created: row.time_created } : undefined,
  });
  return parsed.success ? parsed.data : undefined;
}

/** A row's `data` column as a JSON object, or undefined once it is kept raw with the reason. */
function rowData(
  builder: ImportedLogBuilder,
  source: string,
  row: Record<string, unknown>,
): Record<string, unknown> | undefined {
  if (typeof row.id !== "string" || row.id === "") {
    return keepOpencodeRaw(builder, source, String(row.data), "the row has no text id");
  }
  if (typeof row.data !== "string") {
    return keepOpencodeRaw(
      builder,
      source,
      "",
      `its data column is ${describe(row.data)}, not JSON text`,
    );
  }
  const parsed = parseObjectLine(row.data);
  if ("error" in parsed) return keepOpencodeRaw(builder, source, row.data, parsed.error);
  return parsed.value;
}

function rows(
  db: SqlJsDatabase,
  query: string,
  params: (string | number | null)[] = [],
): Record<string, unknown>[] {
  const statement = db.prepare(query);
  try {
    if (params.length > 0) statement.bind(params);
    const found: Record<string, unknown>[] = [];
    while (statement.step()) found.push(statement.getAsObject());
    return found;
  } finally {
    statement.free();
  }
}

/** Runs a step on the database; SQLite's own errors become a SessionImportError naming the file. */
function sqlite<T>(path: string, step: () => T): T {
  try {
    return step();
  } catch (error) {
    if (SessionImportError.isInstance(error)) throw error;
    const message = error instanceof Error ? error.message : String(error);
    const problem = /not a database/i.test(message) ? "not_recognized" : "unreadable";
    throw new SessionImportError(path, problem, `SQLite cannot read it: ${message}`, {
      cause: error,
    });
  }
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return "empty";
  if (value instanceof Uint8Array) return "binary";
  return typeof value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function mebibytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
