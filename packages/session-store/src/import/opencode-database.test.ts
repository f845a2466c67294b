import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionEntry } from "../format/entries.js";
import { SessionImportError } from "./import-errors.js";
import { defined, importFixture, openImported, toolResultPairing } from "./import-test-util.js";
import type { ImportedLog } from "./imported-log.js";
import { readOpencodeDatabase } from "./opencode-database.js";
import {
  databaseFromStorageFixture,
  emptyDatabase,
  insertMessage,
  insertPart,
  LATER_SESSION_COLUMNS,
  OPENCODE_DDL,
  saveDatabase,
} from "./opencode-database.test-util.js";
import { readOpencodeStorage } from "./opencode-reader.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "arbor-opencode-db-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * Entries without where they were read from (a file of the folder, a row of the database),
 * which also names the raw entries kept for broken ones.
 */
function comparable(log: ImportedLog): unknown[] {
  const source = (id: string | null) => (id?.startsWith("file-") ? "a raw entry" : id);
  return log.entries.map((e: SessionEntry) => {
    const { importedFrom: _, ...rest } = e as SessionEntry & { importedFrom?: unknown };
    if (rest.type === "custom") return { type: "custom", raw: (rest as { data: unknown }).data };
    return { ...rest, parentId: source(rest.parentId) };
  });
}

async function fixtureDatabase(name: string, statements = OPENCODE_DDL): Promise<string> {
  const db = await emptyDatabase(statements);
  await databaseFromStorageFixture(db);
  const path = join(dir, name);
  await saveDatabase(db, path);
  db.close();
  return path;
}

describe("readOpencodeDatabase on opencode's tables", () => {
  it("gives the sessions the storage folder gives, for the first and a later table layout", async () => {
    const folder = await readOpencodeStorage(importFixture("generated", "opencode-storage"));
    for (const statements of [OPENCODE_DDL, OPENCODE_DDL + LATER_SESSION_COLUMNS]) {
      const path = await fixtureDatabase(`layout-${statements.length}.db`, statements);
      const logs = await readOpencodeDatabase(path);
      expect(logs.map((l) => l.header.id)).toEqual(folder.map((l) => l.header.id));
      for (const [i, log] of logs.entries()) {
        const expected = defined(folder[i]);
        expect(log.header).toEqual({
          ...expected.header,
          importedFrom: { ...expected.header.importedFrom, path },
        });
        // The storage folder's broken part file is a broken row here: kept raw, reason and all.
        const raw = (l: ImportedLog) =>
          comparable(l).filter((e) => (e as { type: string }).type === "custom");
        expect(raw(log)).toEqual(
          raw(expected).map((e) => ({
            ...(e as object),
            raw: { ...(e as { raw: object }).raw, file: "part/prt_a006c" },
          })),
        );
        const kept = (l: ImportedLog) =>
          comparable(l).filter((e) => (e as { type: string }).type !== "custom");
        expect(kept(log)).toEqual(kept(expected));
        expect(log.report).toMatchObject({
          raw: expected.report.raw,
          lines: expected.report.lines,
        });
      }
      expect(logs[1]?.header.parentSession).toBe(logs[0]?.header.id);
    }
  });

  it("records each entry's row, and opens with every tool result after its call", async () => {
    const path = await fixtureDatabase("provenance.db");
    const [log] = await readOpencodeDatabase(path);
    const entry = defined(log).entries.find((e) => e.id === "msg_a002");
    expect((entry as { importedFrom?: unknown }).importedFrom).toEqual({
      file: "message/msg_a002",
      id: "msg_a002",
    });
    const session = await openImported(defined(log));
    const messages = session.buildSessionContext("msg_a002-step3").messages as Record<
      string,
      unknown
    >[];
    expect(toolResultPairing(messages)).toEqual([1, 3]);
  });

  it("keeps rows it cannot read as raw entries with the reason, and imports the rest", async () => {
    const db = await emptyDatabase(OPENCODE_DDL);
    db.run(
      "INSERT INTO project (id, worktree, time_created, time_updated, sandboxes) VALUES ('p', '/w', 1, 1, '[]');" +
        "INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) VALUES ('ses_1', 'p', 's', '/w', 'Broken rows', '1.2.0', 1000, 1000);",
    );
    const user = { role: "user", time: { created: 1000 } };
    insertMessage(db, "msg_1", "ses_1", 1000, user);
    insertPart(db, "prt_1", "msg_1", "ses_1", 1000, { type: "text", text: "hello" });
    insertPart(db, "prt_2", "msg_1", "ses_1", 1000, '{"type":"text","text":"cut');
    insertPart(db, "prt_3", "msg_1", "ses_1", 1000, "[1,2]");
    insertPart(db, "prt_4", "msg_1", "ses_1", 1000, { text: "no type" });
    insertMessage(db, "msg_2", "ses_1", 2000, "not json at all");
    insertMessage(db, "msg_3", "ses_1", 3000, { time: { created: 3000 } });
    insertMessage(db, "msg_4", "ses_1", 4000, { role: "user", time: { created: 4000 } });
    db.run("UPDATE message SET data = CAST('{}' AS BLOB) WHERE id = 'msg_4'");
    insertMessage(db, "msg_5", "ses_1", 5000, { role: "user" }); // time only in its column
    insertPart(db, "prt_5", "msg_5", "ses_1", 5000, { type: "text", text: "second" });
    const path = join(dir, "broken-rows.db");
    await saveDatabase(db, path);
    db.close();

    const [log] = await readOpencodeDatabase(path);
    expect(defined(log).report.issues).toEqual([
      { line: 0, file: "part/prt_2", reason: expect.stringMatching(/^not JSON/) },
      { line: 0, file: "part/prt_3", reason: "not a JSON object" },
      { line: 0, file: "part/prt_4", reason: "not an opencode part" },
      { line: 0, file: "message/msg_2", reason: expect.stringMatching(/^not JSON/) },
      { line: 0, file: "message/msg_3", reason: "not an opencode message" },
      { line: 0, file: "message/msg_4", reason: "its data column is binary, not JSON text" },
    ]);
    expect(defined(log).report.raw).toBe(6);
    const session = await openImported(defined(log));
    const context = session.buildSessionContext().messages as { role: string; content: unknown }[];
    expect(context.map((m) => m.content)).toEqual([
      [{ type: "text", text: "hello" }],
      [{ type: "text", text: "second" }],
    ]);
    const second = session.getEntries().find((e) => e.id === "msg_5");
    expect(second?.timestamp).toBe(new Date(5000).toISOString());
    const raw = session.getEntries().filter((e) => e.type === "custom");
    expect(raw.map((e) => (e as { data: { text: string } }).data.text)).toContain(
      '{"type":"text","text":"cut',
    );
  });
});

describe("readOpencodeDatabase on files that are not opencode's database", () => {
  async function file(name: string, content: string | Uint8Array): Promise<string> {
    const path = join(dir, name);
    await writeFile(path, content);
    return path;
  }

  async function errorOf(path: string, options = {}): Promise<SessionImportError> {
    const error = await readOpencodeDatabase(path, options).catch((e: unknown) => e);
    expect(SessionImportError.isInstance(error)).toBe(true);
    const typed = error as SessionImportError;
    expect(typed.path).toBe(path);
    expect(typed.message).toContain(path);
    return typed;
  }

  it("names the problem for files of every other kind", async () => {
    const valid = await saveDatabase(await emptyDatabase(OPENCODE_DDL), join(dir, "v.db"));
    const other = await emptyDatabase(
      "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); CREATE TABLE orders (id INTEGER);",
    );
    const noPart = await emptyDatabase(
      "CREATE TABLE session (id TEXT); CREATE TABLE message (id TEXT, session_id TEXT, data TEXT);",
    );
    const noData = await emptyDatabase(
      "CREATE TABLE session (id TEXT); CREATE TABLE message (id TEXT, session_id TEXT); CREATE TABLE part (id TEXT, message_id TEXT, data TEXT);",
    );
    const random = new Uint8Array(8192).map((_, i) => (i * 7919) % 251);
    const cases: [string, string | Uint8Array, string, RegExp][] = [
      ["empty.db", "", "import_empty", /empty/],
      ["text.db", "hello, this is text\n", "import_not_recognized", /not a SQLite database/],
      ["session.jsonl", '{"type":"session"}\n', "import_not_recognized", /not a SQLite database/],
      ["random.bin", random, "import_not_recognized", /not a SQLite database/],
      ["truncated.db", valid.subarray(0, valid.length / 2), "import_unreadable", /truncated/],
      ["header-only.db", valid.subarray(0, 100), "import_unreadable", /truncated/],
      ["other.db", other.export(), "import_not_recognized", /not opencode's.*orders, users/],
      ["no-part.db", noPart.export(), "import_unsupported_version", /no part table/],
      ["no-data.db", noData.export(), "import_unsupported_version", /message table has no data/],
    ];
    for (const [name, content, code, message] of cases) {
      const error = await errorOf(await file(name, content));
      expect({ name, code: error.code }).toEqual({ name, code });
      expect(error.message).toMatch(message);
    }
    // Damaged pages past a sound header: SQLite's own complaint, as a typed error.
    const damaged = Uint8Array.from(valid);
    damaged.fill(0xff, 100, damaged.length);
    const error = await errorOf(await file("damaged.db", damaged));
    expect(error.code).toMatch(/^import_(unreadable|not_recognized)$/);
    expect(error.message).toMatch(/SQLite cannot read it/);
  });

  it("tells a user without sql.js to install it", async () => {
    const path = await fixtureDatabase("needs-sqljs.db");
    const missing = () => import(["no-such", "package-sql-js"].join("-"));
    const error = await errorOf(path, { loadSqlJs: missing });
    expect(error.code).toBe("import_dependency_missing");
    expect(error.message).toMatch(/needs the optional package sql\.js.*npm install sql\.js/);
    const broken = await errorOf(path, { loadSqlJs: async () => ({ default: 42 }) });
    expect(broken.code).toBe("import_dependency_missing");
  });

  it("reads a 100 MB database, and refuses one over the limit it is given", async () => {
    const db = await emptyDatabase(OPENCODE_DDL);
    db.run(
      "INSERT INTO project (id, worktree, time_created, time_updated, sandboxes) VALUES ('p', '/w', 1, 1, '[]');" +
        "INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) VALUES ('ses_big', 'p', 's', '/w', 'Big', '1.2.0', 1, 1);",
    );
    const text = "x".repeat(1024 * 1024);
    for (let i = 0; i < 100; i++) {
      const id = `msg_${String(i).padStart(3, "0")}`;
      insertMessage(db, id, "ses_big", i, { role: "user", time: { created: i } });
      insertPart(db, `prt_${id}`, id, "ses_big", i, { type: "text", text });
    }
    const path = join(dir, "big.db");
    const bytes = await saveDatabase(db, path);
    db.close();
    expect(bytes.length).toBeGreaterThan(100 * 1024 * 1024);

    const refused = await errorOf(path, { maxDatabaseBytes: 64 * 1024 * 1024 });
    expect(refused.code).toBe("import_too_large");
    expect(refused.message).toMatch(/over the 64\.0 MiB read at once.*maxDatabaseBytes/);

    const [log] = await readOpencodeDatabase(path);
    const texts = defined(log).entries.map(
      (e) => (e as { message?: { content: { text: string }[] } }).message?.content[0]?.text.length,
    );
    expect(texts).toEqual(Array(100).fill(text.length));
  });
});
