import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli, writeRawSession } from "./cli-run.test-util.js";

let root: string;
let env: NodeJS.ProcessEnv;
let project: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "arbor-sessions-files-"));
  project = join(root, "work", "project");
  await mkdir(project, { recursive: true });
  env = { HOME: join(root, "home"), ARBOR_HOME: join(root, "arbor") };
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const sessionsDir = () => join(root, "arbor", "sessions", "--project--");

describe("arbor sessions export", () => {
  it("names the default file after a sanitised id: never outside the folder, never a device or hidden name", async () => {
    const absolute = join(root, "abs-target");
    const hostileIds = [
      "../x",
      "../../escaped",
      absolute,
      "a/b",
      "..",
      "CON",
      "nul\u0000byte",
      "new\nline",
      "z".repeat(5000),
    ];
    for (const [index, id] of hostileIds.entries()) {
      const file = await writeRawSession(sessionsDir(), `s${index}.jsonl`, { id });
      const result = await runCli(["sessions", "export", file], { cwd: project, env });
      expect(result.code, JSON.stringify(id.slice(0, 40))).toBe(0);
      const written = result.stdout.trim();
      expect(written.startsWith(`${project}/`)).toBe(true);
      expect(written.slice(project.length + 1)).not.toContain("/");
      expect(existsSync(written)).toBe(true);
    }
    // Nothing landed beside or above the project, nor at the absolute path.
    expect(await readdir(join(root, "work"))).toEqual(["project"]);
    expect(existsSync(`${absolute}.html`)).toBe(false);
    expect((await readdir(project)).sort()).toEqual(
      [
        "_x.html",
        "_escaped.html",
        `${absolute.replaceAll("/", "_")}.html`,
        "a_b.html",
        "session.html",
        "_CON.html",
        "nul_byte.html",
        "new_line.html",
        `${"z".repeat(120)}.html`,
      ].sort(),
    );
  });

  it("leaves an existing file untouched without --force, naming it and --force; overwrites with it", async () => {
    const file = await writeRawSession(sessionsDir(), "s.jsonl", { id: "plain-id" });
    const target = join(project, "plain-id.html");
    await writeFile(target, "my precious notes");
    const refused = await runCli(["sessions", "export", "plain-id"], { cwd: project, env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${target} already exists`);
    expect(refused.stderr).toContain("--force");
    expect(await readFile(target, "utf8")).toBe("my precious notes");
    const named = join(project, "named.html");
    await writeFile(named, "other notes");
    const refusedNamed = await runCli(["sessions", "export", "plain-id", "named.html"], {
      cwd: project,
      env,
    });
    expect(refusedNamed.code).toBe(1);
    expect(await readFile(named, "utf8")).toBe("other notes");
    const forced = await runCli(["sessions", "export", file, "--force"], { cwd: project, env });
    expect(forced.code).toBe(0);
    expect(await readFile(target, "utf8")).toContain("<html");
  });
});

describe("arbor sessions delete", () => {
  it("refuses anything that is not a session file of the store, and leaves it there", async () => {
    const dir = sessionsDir();
    const real = await writeRawSession(dir, "real.jsonl", { id: "real-session" });
    const outsideSession = await writeRawSession(join(root, "elsewhere"), "out.jsonl", {
      id: "outside-session",
    });
    await writeFile(join(dir, "report.docx"), "docx bytes");
    await writeFile(join(dir, ".env"), "OPENAI_API_KEY=sk-keep-me");
    await writeFile(join(dir, "notes.jsonl"), '{"not":"a session"}\n');
    await mkdir(join(dir, "folder.jsonl"));
    await symlink(outsideSession, join(dir, "link.jsonl"));
    await writeFile(join(project, "mine.jsonl"), await readFile(real, "utf8"));
    const targets = [
      [join(dir, "report.docx"), "its name does not end in .jsonl"],
      [join(dir, ".env"), "its name does not end in .jsonl"],
      [join(dir, "notes.jsonl"), "its first line is not a session header"],
      [join(dir, "folder.jsonl"), "there is no session file at"],
      [join(dir, "link.jsonl"), "it is a symbolic link"],
      [outsideSession, "it is outside the sessions folder"],
      ["./mine.jsonl", "it is outside the sessions folder"],
    ] as const;
    for (const [target, reason] of targets) {
      const result = await runCli(["sessions", "delete", target, "--yes"], { cwd: project, env });
      expect(result.code, target).toBe(1);
      expect(result.stderr, target).toContain(reason);
      expect(result.stdout).toBe("");
    }
    for (const kept of [
      join(dir, "report.docx"),
      join(dir, ".env"),
      join(dir, "notes.jsonl"),
      join(dir, "folder.jsonl"),
      join(dir, "link.jsonl"),
      outsideSession,
      join(project, "mine.jsonl"),
      real,
    ]) {
      expect(existsSync(kept), kept).toBe(true);
    }
    expect(await readFile(join(dir, ".env"), "utf8")).toBe("OPENAI_API_KEY=sk-keep-me");
    // A folder named *.jsonl beside it does not stop the listing that finds ids.
    const deleted = await runCli(["sessions", "delete", "real-session", "--yes"], {
      cwd: project,
      env,
    });
    expect(deleted.stderr).toBe("");
    expect(deleted.code).toBe(0);
    expect(existsSync(real)).toBe(false);
  });
});
