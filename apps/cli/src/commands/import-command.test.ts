import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { main } from "../main.js";
import { runCli } from "./cli-run.test-util.js";
import { counted } from "./import-summary.js";

let root: string;
let env: NodeJS.ProcessEnv;
let project: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "arbor-import-cli-"));
  project = join(root, "work", "project");
  await mkdir(project, { recursive: true });
  env = { HOME: join(root, "home"), ARBOR_HOME: join(root, "arbor") };
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const SESSION = "11111111-2222-4333-8444-555555555555";
const line = (fields: object) =>
  JSON.stringify({
    sessionId: SESSION,
    cwd: "/home/demo",
    version: "2.1.0",
    timestamp: "2026-01-01T10:00:00.000Z",
    ...fields,
  });

/** A Claude Code project folder: a session with a tool call, its sidechain file, and junk. */
async function claudeProject(dir: string): Promise<void> {
  await mkdir(join(dir, SESSION, "subagents"), { recursive: true });
  await writeFile(
    join(dir, `${SESSION}.jsonl`),
    [
      line({
        type: "user",
        uuid: "u1",
        parentUuid: null,
        message: { role: "user", content: "List the <files>" },
      }),
      line({
        type: "assistant",
        uuid: "a1",
        parentUuid: "u1",
        message: {
          id: "m1",
          role: "assistant",
          model: "claude-sonnet-4-5",
          content: [{ type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "ls" } }],
          usage: { input_tokens: 10, output_tokens: 2 },
        },
      }),
      line({
        type: "user",
        uuid: "u2",
        parentUuid: "a1",
        message: {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_1", content: "README.md\npackage.json" },
          ],
        },
      }),
      line({
        type: "assistant",
        uuid: "a2",
        parentUuid: "u2",
        message: {
          id: "m2",
          role: "assistant",
          model: "claude-sonnet-4-5",
          content: [{ type: "text", text: "Two files." }],
        },
      }),
      JSON.stringify({ type: "mystery-line", payload: 1 }),
    ].join("\n"),
  );
  await writeFile(
    join(dir, SESSION, "subagents", "agent-abc.jsonl"),
    line({
      type: "user",
      uuid: "s1",
      parentUuid: null,
      isSidechain: true,
      agentId: "abc",
      message: { role: "user", content: "search" },
    }),
  );
  await writeFile(join(dir, "broken.jsonl"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0]));
  // A session that ended an hour ago: nothing in it is still being written.
  const hourAgo = new Date(Date.now() - 3_600_000);
  await utimes(join(dir, `${SESSION}.jsonl`), hourAgo, hourAgo);
  await utimes(join(dir, SESSION, "subagents", "agent-abc.jsonl"), hourAgo, hourAgo);
}

async function codexRollout(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  const at = "2026-01-02T10:00:00.000Z";
  await writeFile(
    join(dir, "rollout-2026-01-02T10-00-00-aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee.jsonl"),
    [
      {
        timestamp: at,
        type: "session_meta",
        payload: {
          id: "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee",
          cwd: "/home/other",
          cli_version: "0.50.0",
        },
      },
      { timestamp: at, type: "turn_context", payload: { model: "gpt-5-codex", effort: "medium" } },
      {
        timestamp: at,
        type: "response_item",
        payload: {
          type: "message",
          role: "user",
          content: [{ type: "input_text", text: "hi codex" }],
        },
      },
      { timestamp: at, type: "event_msg", payload: { type: "user_message", message: "hi codex" } },
      {
        timestamp: at,
        type: "response_item",
        payload: {
          type: "message",
          role: "assistant",
          content: [{ type: "output_text", text: "hello" }],
        },
      },
    ]
      .map((l) => JSON.stringify(l))
      .join("\n"),
  );
}

describe("arbor import", () => {
  it("imports a folder, prints a summary with skipped files and raw lines, and the sessions list, open and export", async () => {
    const sources = join(root, "sources");
    await claudeProject(join(sources, "claude"));
    await codexRollout(join(sources, "codex"));
    const result = await runCli(["import", sources], { cwd: project, env });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /claude-code\s+claude-code-11111111-2222-4333-8444-555555555555\s+created\s+5\s+1\s/,
    );
    expect(result.stdout).toMatch(/codex\s+codex-aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee\s+created/);
    expect(result.stdout).toContain("broken.jsonl");
    expect(result.stdout).toContain("it is a binary file");
    expect(result.stdout).toContain(
      "3 sessions (3 new, 0 updated, 0 unchanged, 0 left as they were)",
    );
    expect(result.stdout).toContain("1 line kept raw, 1 file skipped");

    const listed = await runCli(["sessions", "list", "--json"], { cwd: project, env });
    const sessions = JSON.parse(listed.stdout) as { id: string; parentSession?: string }[];
    expect(sessions.map((s) => s.id).sort()).toEqual([
      "claude-code-11111111-2222-4333-8444-555555555555",
      "claude-code-11111111-2222-4333-8444-555555555555_abc",
      "codex-aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee",
    ]);
    expect(sessions.find((s) => s.id.endsWith("_abc"))?.parentSession).toBe(
      "claude-code-11111111-2222-4333-8444-555555555555",
    );

    const again = await runCli(["import", sources], { cwd: project, env });
    expect(again.stdout).toContain("3 sessions (0 new, 0 updated, 3 unchanged");
  });

  it("exports an imported session as HTML, Markdown and a pi JSONL file", async () => {
    await claudeProject(join(root, "claude"));
    await runCli(["import", join(root, "claude")], { cwd: project, env });
    const id = "claude-code-11111111-2222-4333-8444-555555555555";
    for (const format of ["html", "md", "jsonl"]) {
      const result = await runCli(["export", id, "--format", format], { cwd: project, env });
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      expect(result.stdout.trim()).toBe(join(project, `${id}.${format}`));
    }
    const html = await readFile(join(project, `${id}.html`), "utf8");
    expect(html).toContain("README.md");
    expect(html).toContain("Two files.");
    expect(html).not.toContain("List the <files>"); // escaped in the page
    const md = await readFile(join(project, `${id}.md`), "utf8");
    expect(md).toContain("**Tool call** `Bash` (toolu_1)");
    expect(md).toContain("#### Tool result: `Bash` (toolu_1)");
    const jsonl = (await readFile(join(project, `${id}.jsonl`), "utf8")).trimEnd().split("\n");
    expect(JSON.parse(jsonl[0] as string)).toMatchObject({
      type: "session",
      id,
      importedFrom: { tool: "claude-code" },
    });
    const existing = await runCli(["export", id, "--format", "md"], { cwd: project, env });
    expect(existing.code).toBe(1);
    expect(existing.stderr).toContain("already exists");
  });

  it("with --dry-run reports the same summary and stores nothing", async () => {
    await claudeProject(join(root, "claude"));
    const result = await runCli(["import", join(root, "claude"), "--dry-run"], {
      cwd: project,
      env,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/WOULD BE/);
    expect(result.stdout).toContain("dry run: nothing was written");
    expect(existsSync(join(root, "arbor", "sessions"))).toBe(false);
  });

  it("with --from claude-code and no path reads ~/.claude/projects", async () => {
    await claudeProject(join(root, "home", ".claude", "projects", "-work-demo"));
    const result = await runCli(["import", "--from", "claude-code"], { cwd: project, env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("2 sessions (2 new");
    const missing = await runCli(["import", "--from", "codex"], { cwd: project, env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(join(root, "home", ".codex", "sessions"));
  });

  it("refuses a tool or format it does not know, and a path that is not there", async () => {
    const badFrom = await runCli(["import", project, "--from", "cursor"], { cwd: project, env });
    expect(badFrom.code).toBe(2);
    expect(badFrom.stderr).toContain("claude-code, codex, opencode");
    const badFormat = await runCli(["export", "x", "--format", "pdf"], { cwd: project, env });
    expect(badFormat.code).toBe(2);
    const missing = await runCli(["import", join(root, "nowhere")], { cwd: project, env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("there is no such file or folder");
    expect(await readdir(root)).not.toContain("arbor");
  });

  it("draws a progress bar over a folder on a terminal, and clears it before the summary", async () => {
    await claudeProject(join(root, "claude"));
    const err: string[] = [];
    const out: string[] = [];
    const code = await main(["import", join(root, "claude")], {
      stdout: { write: (t: string) => out.push(t) },
      stderr: { write: (t: string) => err.push(t), isTTY: true },
      stdin: Object.assign(Readable.from([]), { isTTY: false }),
      env,
      cwd: project,
    });
    expect(code).toBe(0);
    const bars = err.filter((t) => t.includes("/3 "));
    expect(bars.map((t) => t.match(/\d+\/3/)?.[0])).toEqual(["1/3", "2/3", "3/3"]);
    expect(bars.at(-1)).toContain(`\r\u001b[2K[${"#".repeat(24)}]`);
    expect(err.at(-1)).toBe("\r\u001b[2K");
    expect(out.join("")).toContain("2 sessions (2 new");
  });
});

describe("import summary counts", () => {
  it("puts each noun in the right number: 1 session, 2 sessions, 1 entry", () => {
    expect(counted(1, "session")).toBe("1 session");
    expect(counted(2, "session")).toBe("2 sessions");
    expect(counted(0, "file")).toBe("0 files");
    expect(counted(1, "entry", "entries")).toBe("1 entry");
    expect(counted(3, "entry", "entries")).toBe("3 entries");
  });
});
