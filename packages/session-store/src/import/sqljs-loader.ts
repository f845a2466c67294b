import { SessionImportError } from "./import-errors.js";

/*
 * The few parts of sql.js (SQLite compiled to WebAssembly) the database reader uses. They are
 * declared here rather than imported from sql.js's types so that the published types of
 * this package do not need sql.js, an optional peer dependency.
 */

/** A prepared statement of sql.js. */
export interface SqlJsStatement {
  bind(values: (string | number | null)[]): boolean;
  step(): boolean;
  getAsObject(): Record<string, unknown>;
  free(): boolean;
}

/** An open sql.js database (the whole file, in WebAssembly memory). */
export interface SqlJsDatabase {
  prepare(sql: string): SqlJsStatement;
  close(): void;
}

/** What `initSqlJs()` resolves to. */
export interface SqlJsStatic {
  Database: new (data?: Uint8Array) => SqlJsDatabase;
}

/** Loads sql.js: by default the installed sql.js package; a seam for tests and bundlers. */
export type SqlJsLoader = () => Promise<unknown>;

const INSTALL_HINT =
  "reading opencode's SQLite database needs the optional package sql.js (SQLite compiled to WebAssembly, no native build): install it next to @arbor/session-store (npm install sql.js) and import again";

let cached: Promise<SqlJsStatic> | undefined;

/**
 * sql.js, initialised once per process (the default loader) or per call (a given loader).
 * @throws SessionImportError `dependency_missing` naming `path` when sql.js is not
 *   installed or cannot start
 */
export async function loadSqlJs(path: string, loader?: SqlJsLoader): Promise<SqlJsStatic> {
  if (loader) return initialise(path, loader);
  cached ??= initialise(path, () => import("sql.js"));
  try {
    return await cached;
  } catch (error) {
    cached = undefined; // installed later in the same process: try again then
    throw error;
  }
}

async function initialise(path: string, loader: SqlJsLoader): Promise<SqlJsStatic> {
  let module: unknown;
  try {
    module = await loader();
  } catch (error) {
    const missing = (error as { code?: unknown }).code;
    const detail =
      missing === "ERR_MODULE_NOT_FOUND" || missing === "MODULE_NOT_FOUND"
        ? INSTALL_HINT
        : `${INSTALL_HINT} (loading it failed: ${error instanceof Error ? error.message : String(error)})`;
    throw new SessionImportError(path, "dependency_missing", detail, { cause: error });
  }
  const init = (module as { default?: unknown }).default ?? module;
  if (typeof init !== "function") {
    throw new SessionImportError(
      path,
      "dependency_missing",
      `${INSTALL_HINT} (the sql.js found exports no initialiser)`,
    );
  }
  try {
    const sql = (await (init as () => Promise<unknown>)()) as Partial<SqlJsStatic>;
    if (typeof sql?.Database !== "function") throw new Error("no Database class");
    return sql as SqlJsStatic;
  } catch (error) {
    throw new SessionImportError(
      path,
      "dependency_missing",
      `sql.js is installed but did not start (${error instanceof Error ? error.message : String(error)})`,
      { cause: error },
    );
  }
}
