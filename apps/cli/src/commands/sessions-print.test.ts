import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HOSTILE_TEXT, RAW_CONTROL } from "../output/hostile-text.test-util.js";
import { runCli, writeRawSession } from "./cli-run.test-util.js";

let root: string;
let env: NodeJS.ProcessEnv;
let project: string;
const KEY = "sk-live-5e3c9a7f1b2d4e6f";

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "arbor-sessions-print-"));
  project = join(root, "project");
  await mkdir(project);
  env = { HOME: join(root, "home"), ARBOR_HOME: join(root, "arbor"), OPENAI_API_KEY: KEY };
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const sessionsDir = () => join(root, "arbor", "sessions", "--project--");

async function hostileSession(id = "hostile-1") {
  return writeRawSession(sessionsDir(), `${id}.jsonl`, {
    id,
    cwd: `/tmp/${HOSTILE_TEXT}`,
    title: `Title ${HOSTILE_TEXT}`,
    user: `question ${HOSTILE_TEXT}\nsecond line`,
    assistant: `answer ${HOSTILE_TEXT}`,
    label: `label ${HOSTILE_TEXT}`,
  });
}

describe("arbor sessions prints session text safely", () => {
  it("list: titles and folders with escape sequences are shown as escapes, one line per session after the header", async () => {
    await hostileSession("hostile-1");
    await hostileSession("hostile-2");
    const result = await runCli(["sessions", "list"], { cwd: project, env });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(RAW_CONTROL);
    expect(result.stdout).toContain("Title \\x1b]52;c;cm0gLXJmIH4K\\x07");
    expect(result.stdout).toContain("harmless\\rEVIL OVERWRITE");
    expect(result.stdout.trimEnd().split("\n")).toHaveLength(3);
  });

  it("list --json: still valid JSON with the exact stored title, and no raw control characters", async () => {
    await hostileSession();
    const result = await runCli(["sessions", "list", "--json"], { cwd: project, env });
    expect(result.stdout).not.toMatch(RAW_CONTROL);
    const [listed] = JSON.parse(result.stdout) as Array<{ title: string }>;
    expect(listed?.title).toBe(`Title ${HOSTILE_TEXT}`);
  });

  it("show and title: the title, messages and labels are shown as escapes", async () => {
    await hostileSession();
    const show = await runCli(["sessions", "show", "hostile-1"], { cwd: project, env });
    expect(show.code).toBe(0);
    expect(show.stdout).not.toMatch(RAW_CONTROL);
    expect(show.stdout).toContain("\\x1b[2J");
    expect(show.stdout).toContain("[label \\x1b]52");
    expect(show.stdout).toContain("\\u202egnp.exe");
    const title = await runCli(["sessions", "title", "hostile-1"], { cwd: project, env });
    expect(title.stdout).not.toMatch(RAW_CONTROL);
    expect(title.stdout).toContain("\\x1b]0;pwned");
  });

  it("error messages quoting what the user or a file gave are shown as escapes and never hold the API key", async () => {
    for (const argv of [
      ["sessions", "show", `no-such-${HOSTILE_TEXT}`],
      ["sessions", "show", `./${HOSTILE_TEXT}.jsonl`],
      ["sessions", `\u001b]52;c;eA==\u0007`],
      ["sessions", "show", KEY],
    ]) {
      const result = await runCli(argv, { cwd: project, env });
      expect(result.code).not.toBe(0);
      expect(result.stderr).not.toMatch(RAW_CONTROL);
      expect(result.stderr).not.toContain(KEY);
    }
    const keyed = await runCli(["sessions", "show", KEY], { cwd: project, env });
    expect(keyed.stderr).toContain('there is no session with id "[redacted]"');
  });

  it("--json output holds no configured API key", async () => {
    await writeRawSession(sessionsDir(), "k.jsonl", { id: "k", title: `leaked ${KEY}` });
    const result = await runCli(["sessions", "list", "--json"], { cwd: project, env });
    expect(result.stdout).not.toContain(KEY);
    expect(result.stdout).toContain("leaked [redacted]");
  });
});
