import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import initSqlJs from "sql.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "./cli-run.test-util.js";

let root: string;
let env: NodeJS.ProcessEnv;
let project: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "arbor-import-opencode-cli-"));
  project = join(root, "work", "project");
  await mkdir(project, { recursive: true });
  env = { HOME: join(root, "home"), ARBOR_HOME: join(root, "arbor") };
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/**
 * opencode's database with one session: the session, message and part tables with the
 * columns opencode 1.2 creates that the import reads, a question, and an answer that ran a tool.
 */
async function opencodeDatabase(path: string): Promise<void> {
  const SQL = await initSqlJs();
  const db = new SQL.Database();
  db.run(`
    CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL, parent_id text,
      slug text NOT NULL, directory text NOT NULL, title text NOT NULL, version text NOT NULL,
      time_created integer NOT NULL, time_updated integer NOT NULL);
    CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL,
      time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
    CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL,
      time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
    INSERT INTO session VALUES ('ses_1', 'p', NULL, 's', '/home/demo', 'Count the files', '1.2.0', 1000, 2000);
  `);
  const rows: [string, string, string, object][] = [
    ["message", "msg_1", "ses_1", { role: "user", time: { created: 1000 } }],
    ["part", "prt_1a", "msg_1", { type: "text", text: "How many files?" }],
    [
      "message",
      "msg_2",
      "ses_1",
      { role: "assistant", time: { created: 1500 }, providerID: "anthropic", modelID: "claude-x" },
    ],
    ["part", "prt_2a", "msg_2", { type: "step-start" }],
    [
      "part",
      "prt_2b",
      "msg_2",
      {
        type: "tool",
        callID: "call_1",
        tool: "bash",
        state: { status: "completed", input: { command: "ls" }, output: "a\nb" },
      },
    ],
    ["part", "prt_2c", "msg_2", { type: "step-start" }],
    ["part", "prt_2d", "msg_2", { type: "text", text: "Two files." }],
  ];
  for (const [table, id, owner, data] of rows) {
    if (table === "message")
      db.run("INSERT INTO message VALUES (?, ?, 1000, 1000, ?)", [id, owner, JSON.stringify(data)]);
    else
      db.run("INSERT INTO part VALUES (?, ?, 'ses_1', 1000, 1000, ?)", [
        id,
        owner,
        JSON.stringify(data),
      ]);
  }
  await mkdir(join(path, ".."), { recursive: true });
  await writeFile(path, db.export());
  db.close();
}

describe("arbor import of opencode's database", () => {
  it("reads opencode.db from opencode's data folder with --from opencode, and the file given", async () => {
    await opencodeDatabase(join(root, "home", ".local", "share", "opencode", "opencode.db"));
    const result = await runCli(["import", "--from", "opencode"], { cwd: project, env });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/opencode\s+opencode-ses_1\s+created\s+5\s+0\s/);
    expect(result.stdout).toContain("1 session (1 new");

    const exported = await runCli(["export", "opencode-ses_1", "--format", "md"], {
      cwd: project,
      env,
    });
    expect(exported.code).toBe(0);

    const file = join(root, "elsewhere", "copy.db");
    await opencodeDatabase(file);
    const again = await runCli(["import", file], { cwd: project, env });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("1 session (0 new, 0 updated, 1 unchanged");
  });

  it("follows XDG_DATA_HOME as opencode does", async () => {
    await opencodeDatabase(join(root, "data", "opencode", "opencode.db"));
    const result = await runCli(["import", "--from", "opencode"], {
      cwd: project,
      env: { ...env, XDG_DATA_HOME: join(root, "data") },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("1 session (1 new");
  });

  it("names a database that is not opencode's and why", async () => {
    const file = join(root, "notes.db");
    const SQL = await initSqlJs();
    const db = new SQL.Database();
    db.run("CREATE TABLE notes (id INTEGER, body TEXT)");
    await writeFile(file, db.export());
    const result = await runCli(["import", file, "--from", "opencode"], { cwd: project, env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(file);
    expect(result.stderr).toContain("not opencode's");
  });
});
