import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolveArborPaths, sessionDirFor } from "../paths.js";
import { runCli, writeRawSession } from "./cli-run.test-util.js";

let root: string;
let env: NodeJS.ProcessEnv;
let project: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "arbor-sessions-list-"));
  project = join(root, "project");
  await mkdir(project);
  env = {
    HOME: join(root, "home"),
    ARBOR_HOME: join(root, "arbor"),
    OPENAI_API_KEY: "sk-test-1234567890",
  };
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const dirOf = (cwd: string) => sessionDirFor(resolveArborPaths(env), cwd);
const cli = (argv: string[], stdin?: { text: string; isTTY: boolean }) =>
  runCli(argv, { cwd: project, env, ...(stdin ? { stdin } : {}) });

async function twoDirectories() {
  const here = await writeRawSession(dirOf(project), "here.jsonl", {
    id: "019a0000-aaaa-7000-8000-000000000001",
    cwd: project,
    title: "Here talk",
    user: "question here",
    assistant: "answer here",
  });
  const there = await writeRawSession(dirOf("/srv/elsewhere"), "there.jsonl", {
    id: "019a0000-aaaa-7000-8000-000000000002",
    cwd: "/srv/elsewhere",
    title: "There talk",
  });
  return { here, there };
}

describe("arbor sessions list", () => {
  it("starts with a header row; --here keeps this directory's sessions only", async () => {
    await twoDirectories();
    const all = await cli(["sessions", "list"]);
    const lines = all.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^ID\s+MODIFIED\s+MSGS\s+TITLE\s+FOLDER$/);
    expect(lines).toHaveLength(3);
    const here = await cli(["sessions", "list", "--here"]);
    const hereLines = here.stdout.trimEnd().split("\n");
    expect(hereLines).toHaveLength(2);
    expect(hereLines[1]).toContain("Here talk");
    const empty = await runCli(["sessions", "list", "--here"], { cwd: root, env });
    expect(empty.stdout).toContain("No sessions in this directory yet");
  });
});

describe("arbor sessions show --json and ambiguous ids", () => {
  it("prints the session as JSON: header, title, leaf and every entry", async () => {
    await twoDirectories();
    const shown = await cli(["sessions", "show", "019a0000-aaaa-7000-8000-000000000001", "--json"]);
    expect(shown.code).toBe(0);
    const json = JSON.parse(shown.stdout) as {
      id: string;
      title: string;
      leafId: string;
      entries: Array<{ id: string }>;
    };
    expect(json).toMatchObject({ id: "019a0000-aaaa-7000-8000-000000000001", title: "Here talk" });
    expect(json.entries.map((entry) => entry.id)).toContain(json.leafId);
    expect(shown.stdout).toContain("answer here");
  });

  it("refuses a one-character id prefix as ambiguous, even when one session matches it", async () => {
    await writeRawSession(dirOf(project), "only.jsonl", {
      id: "719a0000-aaaa-7000-8000-000000000009",
      cwd: project,
      title: "Only talk",
    });
    const result = await cli(["sessions", "show", "7"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('"7" is too short to name a session: it is ambiguous.');
    expect(result.stderr).toContain("at least 2 characters");
    const two = await cli(["sessions", "show", "71"]);
    expect(two.code).toBe(0);
  });

  it("lists the candidates of an ambiguous id prefix", async () => {
    await twoDirectories();
    const result = await cli(["sessions", "show", "019a0000"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('"019a0000" matches 2 sessions:');
    expect(result.stderr).toContain("019a0000-aaaa-7000-8000-000000000001");
    expect(result.stderr).toContain("019a0000-aaaa-7000-8000-000000000002  ");
    expect(result.stderr).toContain("There talk");
    expect(result.stderr).toContain("Give more characters of the id.");
  });
});

describe("arbor sessions delete", () => {
  it("asks on a terminal: no keeps the file, yes deletes it; without a terminal it needs --yes", async () => {
    const { here } = await twoDirectories();
    const id = "019a0000-aaaa-7000-8000-000000000001";
    const unasked = await cli(["sessions", "delete", id]);
    expect(unasked.code).toBe(2);
    expect(unasked.stderr).toContain("there is no terminal to ask on");
    expect(unasked.stderr).toContain("--yes");
    expect(existsSync(here)).toBe(true);

    for (const answer of ["n\n", "\n", "whatever\n", ""]) {
      const kept = await cli(["sessions", "delete", id], { text: answer, isTTY: true });
      expect(kept.code, JSON.stringify(answer)).toBe(1);
      expect(kept.stderr).toContain("Delete Here talk");
      expect(kept.stderr).toContain("Kept the session");
      expect(existsSync(here)).toBe(true);
    }
    const deleted = await cli(["sessions", "delete", id], { text: "y\n", isTTY: true });
    expect(deleted.code).toBe(0);
    expect(existsSync(here)).toBe(false);
  });
});
