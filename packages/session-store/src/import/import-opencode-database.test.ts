import { cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileSessionStore } from "../store/file-session-store.js";
import { SessionImportError } from "./import-errors.js";
import { type ImportProgress, importSessions } from "./import-sessions.js";
import { importFixture, toolResultPairing } from "./import-test-util.js";
import {
  databaseFromStorageFixture,
  emptyDatabase,
  insertMessage,
  insertPart,
  OPENCODE_DDL,
  saveDatabase,
} from "./opencode-database.test-util.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "arbor-import-opencode-db-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** opencode's data folder: `opencode.db`, and the older `storage/` folder beside it. */
async function dataFolder(): Promise<{
  data: string;
  db: Awaited<ReturnType<typeof emptyDatabase>>;
}> {
  const data = join(dir, "opencode");
  await mkdir(data, { recursive: true });
  await cp(importFixture("generated", "opencode-storage"), join(data, "storage"), {
    recursive: true,
  });
  const db = await emptyDatabase(OPENCODE_DDL);
  await databaseFromStorageFixture(db);
  await saveDatabase(db, join(data, "opencode.db"));
  return { data, db };
}

const store = () => new FileSessionStore({ root: join(dir, "store"), durability: "never" });

describe("importSessions on opencode's database", () => {
  it("finds the database in the data folder, given the folder or the file, from auto or opencode", async () => {
    const { data } = await dataFolder();
    for (const [i, [path, from]] of (
      [
        [data, "auto"],
        [data, "opencode"],
        [join(data, "opencode.db"), "auto"],
        [join(data, "opencode.db"), "opencode"],
      ] as const
    ).entries()) {
      const target = new FileSessionStore({ root: join(dir, `store-${i}`), durability: "never" });
      const progress: ImportProgress[] = [];
      const summary = await importSessions(path, {
        store: target,
        from,
        onProgress: (p) => progress.push(p),
      });
      expect(summary.sessions.map((s) => [s.tool, s.status, s.path])).toEqual([
        ["opencode", "created", join(data, "opencode.db")],
        ["opencode", "created", join(data, "opencode.db")],
      ]);
      expect(progress.map((p) => `${p.done}/${p.total}`)).toEqual(["1/2", "2/2"]);
      const listed = (await target.list()).sessions.map((s) => s.id).sort();
      expect(listed).toEqual([
        "opencode-ses_5f0a1b2c3ffeABCDEF123456",
        "opencode-ses_5f0a1b2c4ffeABCDEF654321",
      ]);
      const session = await target.open("opencode-ses_5f0a1b2c3ffeABCDEF123456", {
        readOnly: true,
      });
      const messages = session.buildSessionContext("msg_a002-step3").messages as Record<
        string,
        unknown
      >[];
      expect(toolResultPairing(messages)).toEqual([1, 3]);
      await session.close();
    }
  });

  it("imports again without a change, and appends the messages the database gained", async () => {
    const { data, db } = await dataFolder();
    const target = store();
    // The database was written a moment ago: settleMs 0 takes it as complete all the same.
    await importSessions(data, { store: target, settleMs: 0 });
    const again = await importSessions(data, { store: target, settleMs: 0 });
    expect(again.sessions.map((s) => s.status)).toEqual(["unchanged", "unchanged"]);

    insertMessage(db, "msg_a007", "ses_5f0a1b2c3ffeABCDEF123456", 1759400090000, {
      role: "user",
      time: { created: 1759400090000 },
    });
    insertPart(db, "prt_a007a", "msg_a007", "ses_5f0a1b2c3ffeABCDEF123456", 1759400090000, {
      type: "text",
      text: "And now?",
    });
    await saveDatabase(db, join(data, "opencode.db"));
    const grown = await importSessions(data, { store: target, settleMs: 0 });
    expect(grown.sessions.map((s) => [s.status, s.added])).toEqual([
      ["updated", 1],
      ["unchanged", 0],
    ]);
    const session = await target.open("opencode-ses_5f0a1b2c3ffeABCDEF123456", { readOnly: true });
    expect(session.getLeafEntry()).toMatchObject({
      id: "msg_a007",
      message: { content: [{ type: "text", text: "And now?" }] },
    });
    await session.close();
  });

  it("refuses what is not opencode's, with the file named", async () => {
    const jsonl = join(dir, "a.jsonl");
    await writeFile(jsonl, '{"type":"session"}\n');
    const other = await emptyDatabase("CREATE TABLE notes (id INTEGER, body TEXT);");
    const otherPath = join(dir, "notes.db");
    await saveDatabase(other, otherPath);
    const empty = join(dir, "empty-folder");
    await mkdir(empty);
    for (const [path, from, code] of [
      [jsonl, "opencode", "import_not_recognized"],
      [otherPath, "auto", "import_not_recognized"],
      [otherPath, "opencode", "import_not_recognized"],
      [empty, "opencode", "import_not_recognized"],
    ] as const) {
      const error = await importSessions(path, { store: store(), from }).catch((e: unknown) => e);
      expect(SessionImportError.isInstance(error)).toBe(true);
      expect({ path, code: (error as SessionImportError).code }).toEqual({ path, code });
      expect((error as Error).message).toContain(path);
    }
  });

  it("without sql.js, says to install it and stores nothing", async () => {
    const { data } = await dataFolder();
    const target = store();
    const error = await importSessions(data, {
      store: target,
      loadSqlJs: () => import(["not", "installed", "sqljs"].join("-")),
    }).catch((e: unknown) => e);
    expect((error as SessionImportError).code).toBe("import_dependency_missing");
    expect((error as Error).message).toMatch(/npm install sql\.js/);
    expect((await target.list()).sessions).toEqual([]);
  });
});
