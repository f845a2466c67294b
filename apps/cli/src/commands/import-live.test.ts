import { mkdir, mkdtemp, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "./cli-run.test-util.js";

let root: string;
let env: NodeJS.ProcessEnv;
let project: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "arbor-import-live-cli-"));
  project = join(root, "work", "project");
  await mkdir(project, { recursive: true });
  env = { HOME: join(root, "home"), ARBOR_HOME: join(root, "arbor") };
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("arbor import of a session still being written", () => {
  it("holds back the answer still being written, says so, and stores it once complete", async () => {
    const dir = join(root, "live");
    await mkdir(dir, { recursive: true });
    const file = join(dir, "22222222-2222-4333-8444-555555555555.jsonl");
    const base = {
      sessionId: "22222222-2222-4333-8444-555555555555",
      cwd: "/w",
      timestamp: "2026-01-01T10:00:00.000Z",
    };
    const user = {
      ...base,
      type: "user",
      uuid: "u1",
      parentUuid: null,
      message: { role: "user", content: "hi" },
    };
    const answer = (uuid: string, parent: string, text: string) => ({
      ...base,
      type: "assistant",
      uuid,
      parentUuid: parent,
      message: {
        id: "msg_1",
        role: "assistant",
        model: "claude-x",
        content: [{ type: "text", text }],
      },
    });
    await writeFile(
      file,
      `${JSON.stringify(user)}\n${JSON.stringify(answer("a1", "u1", "Hel"))}\n`,
    );
    const live = await runCli(["import", file], { cwd: project, env });
    expect(live.code).toBe(0);
    expect(live.stdout).toContain("1 entries held back: answers still being written");

    await writeFile(
      file,
      `${JSON.stringify(user)}\n${JSON.stringify(answer("a1", "u1", "Hel"))}\n${JSON.stringify(answer("a2", "a1", "lo."))}\n`,
    );
    const hourAgo = new Date(Date.now() - 3_600_000);
    await utimes(file, hourAgo, hourAgo);
    const done = await runCli(["import", file], { cwd: project, env });
    expect(done.stdout).not.toContain("held back");
    expect(done.stdout).toContain("1 session (0 new, 1 updated");
  });
});
