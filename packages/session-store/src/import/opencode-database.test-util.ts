import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import initSqlJs from "sql.js";
import { importFixture } from "./import-test-util.js";

/**
 * The tables opencode's first database migration (`20260127222353_familiar_lady_ursula`,
 * opencode 1.2) creates, statement for statement as it runs them.
 */
export const OPENCODE_DDL = `
CREATE TABLE \`project\` (
	\`id\` text PRIMARY KEY,
	\`worktree\` text NOT NULL,
	\`vcs\` text,
	\`name\` text,
	\`icon_url\` text,
	\`icon_color\` text,
	\`time_created\` integer NOT NULL,
	\`time_updated\` integer NOT NULL,
	\`time_initialized\` integer,
	\`sandboxes\` text NOT NULL
);
CREATE TABLE \`message\` (
	\`id\` text PRIMARY KEY,
	\`session_id\` text NOT NULL,
	\`time_created\` integer NOT NULL,
	\`time_updated\` integer NOT NULL,
	\`data\` text NOT NULL,
	CONSTRAINT \`fk_message_session_id_session_id_fk\` FOREIGN KEY (\`session_id\`) REFERENCES \`session\`(\`id\`) ON DELETE CASCADE
);
CREATE TABLE \`part\` (
	\`id\` text PRIMARY KEY,
	\`message_id\` text NOT NULL,
	\`session_id\` text NOT NULL,
	\`time_created\` integer NOT NULL,
	\`time_updated\` integer NOT NULL,
	\`data\` text NOT NULL,
	CONSTRAINT \`fk_part_message_id_message_id_fk\` FOREIGN KEY (\`message_id\`) REFERENCES \`message\`(\`id\`) ON DELETE CASCADE
);
CREATE TABLE \`permission\` (
	\`project_id\` text PRIMARY KEY,
	\`time_created\` integer NOT NULL,
	\`time_updated\` integer NOT NULL,
	\`data\` text NOT NULL,
	CONSTRAINT \`fk_permission_project_id_project_id_fk\` FOREIGN KEY (\`project_id\`) REFERENCES \`project\`(\`id\`) ON DELETE CASCADE
);
CREATE TABLE \`session\` (
	\`id\` text PRIMARY KEY,
	\`project_id\` text NOT NULL,
	\`parent_id\` text,
	\`slug\` text NOT NULL,
	\`directory\` text NOT NULL,
	\`title\` text NOT NULL,
	\`version\` text NOT NULL,
	\`share_url\` text,
	\`summary_additions\` integer,
	\`summary_deletions\` integer,
	\`summary_files\` integer,
	\`summary_diffs\` text,
	\`revert\` text,
	\`permission\` text,
	\`time_created\` integer NOT NULL,
	\`time_updated\` integer NOT NULL,
	\`time_compacting\` integer,
	\`time_archived\` integer,
	CONSTRAINT \`fk_session_project_id_project_id_fk\` FOREIGN KEY (\`project_id\`) REFERENCES \`project\`(\`id\`) ON DELETE CASCADE
);
CREATE TABLE \`todo\` (
	\`session_id\` text NOT NULL,
	\`content\` text NOT NULL,
	\`status\` text NOT NULL,
	\`priority\` text NOT NULL,
	\`position\` integer NOT NULL,
	\`time_created\` integer NOT NULL,
	\`time_updated\` integer NOT NULL,
	CONSTRAINT \`todo_pk\` PRIMARY KEY(\`session_id\`, \`position\`),
	CONSTRAINT \`fk_todo_session_id_session_id_fk\` FOREIGN KEY (\`session_id\`) REFERENCES \`session\`(\`id\`) ON DELETE CASCADE
);
CREATE TABLE \`session_share\` (
	\`session_id\` text PRIMARY KEY,
	\`id\` text NOT NULL,
	\`secret\` text NOT NULL,
	\`url\` text NOT NULL,
	\`time_created\` integer NOT NULL,
	\`time_updated\` integer NOT NULL,
	CONSTRAINT \`fk_session_share_session_id_session_id_fk\` FOREIGN KEY (\`session_id\`) REFERENCES \`session\`(\`id\`) ON DELETE CASCADE
);
CREATE INDEX \`message_session_idx\` ON \`message\` (\`session_id\`);
CREATE INDEX \`part_message_idx\` ON \`part\` (\`message_id\`);
CREATE INDEX \`part_session_idx\` ON \`part\` (\`session_id\`);
CREATE INDEX \`session_project_idx\` ON \`session\` (\`project_id\`);
CREATE INDEX \`session_parent_idx\` ON \`session\` (\`parent_id\`);
CREATE INDEX \`todo_session_idx\` ON \`todo\` (\`session_id\`);
`;

/** Columns later opencode versions added to the session table (workspaces, totals, model). */
export const LATER_SESSION_COLUMNS = `
ALTER TABLE \`session\` ADD \`workspace_id\` text;
ALTER TABLE \`session\` ADD \`cost\` real DEFAULT 0 NOT NULL;
ALTER TABLE \`session\` ADD \`tokens_input\` integer DEFAULT 0 NOT NULL;
ALTER TABLE \`session\` ADD \`agent\` text;
ALTER TABLE \`session\` ADD \`model\` text;
`;

/** A sql.js database: the statements run, the rows inserted. */
export type TestDatabase = Awaited<ReturnType<typeof emptyDatabase>>;

/** An empty in-memory database, with `statements` run (none by default). */
export async function emptyDatabase(statements = "") {
  const SQL = await initSqlJs();
  const db = new SQL.Database();
  if (statements) db.run(statements);
  return db;
}

type Json = Record<string, unknown>;

/**
 * The package's generated opencode storage folder written into opencode's tables, as
 * opencode's migration from the folder to the database does: session fields become
 * columns, message and part files become `data` without the ids the columns carry.
 */
export async function databaseFromStorageFixture(db: TestDatabase): Promise<void> {
  const root = importFixture("generated", "opencode-storage");
  db.run(
    "INSERT INTO project (id, worktree, time_created, time_updated, sandboxes) VALUES ('proj_9', '/home/demo', 1, 1, '[]')",
  );
  for (const project of await readdir(join(root, "session"))) {
    for (const file of await readdir(join(root, "session", project))) {
      const s = JSON.parse(await readFile(join(root, "session", project, file), "utf8")) as Json;
      const time = s.time as { created: number; updated?: number };
      db.run(
        "INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
          s.id as string,
          project,
          (s.parentID as string | undefined) ?? null,
          "slug",
          s.directory as string,
          s.title as string,
          s.version as string,
          time.created,
          time.updated ?? time.created,
        ],
      );
      for (const name of await readdir(join(root, "message", s.id as string))) {
        const path = join(root, "message", s.id as string, name);
        const { id, sessionID, ...data } = JSON.parse(await readFile(path, "utf8")) as Json;
        const created = (data.time as { created: number }).created;
        insertMessage(db, String(id), String(sessionID), created, data);
        for (const partName of await readdir(join(root, "part", String(id))).catch(() => [])) {
          const partPath = join(root, "part", String(id), partName);
          const text = await readFile(partPath, "utf8");
          const partId = partName.replace(/\.json$/, "");
          let part: Json;
          try {
            part = JSON.parse(text) as Json;
          } catch {
            // The fixture's broken part file: the row keeps the broken text as its data.
            insertPart(db, partId, String(id), String(sessionID), created, text);
            continue;
          }
          const { id: _p, sessionID: _s, messageID: _m, ...partData } = part;
          insertPart(db, partId, String(id), String(sessionID), created, partData);
        }
      }
    }
  }
}

/** Inserts a message row; `data` is stored as given when it is a string. */
export function insertMessage(
  db: TestDatabase,
  id: string,
  sessionId: string,
  created: number,
  data: Json | string,
): void {
  db.run(
    "INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)",
    [id, sessionId, created, created, typeof data === "string" ? data : JSON.stringify(data)],
  );
}

/** Inserts a part row; `data` is stored as given when it is a string. */
export function insertPart(
  db: TestDatabase,
  id: string,
  messageId: string,
  sessionId: string,
  created: number,
  data: Json | string,
): void {
  db.run(
    "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)",
    [
      id,
      messageId,
      sessionId,
      created,
      created,
      typeof data === "string" ? data : JSON.stringify(data),
    ],
  );
}

/** Writes the database to a file and returns its bytes. */
export async function saveDatabase(db: TestDatabase, path: string): Promise<Uint8Array> {
  const bytes = db.export();
  await writeFile(path, bytes);
  return bytes;
}
