import { spawnSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { FakeProviderServer } from "@arbor/providers/test";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { writeRawSession } from "../../src/commands/cli-run.test-util.js";
import { resolveArborPaths, sessionDirFor } from "../../src/paths.js";
import { createSandbox, type Sandbox } from "./e2e-fixture.js";
import { startRoutedServer } from "./routed-fake-server.js";
import { runArbor } from "./run-binary.js";
import { ARBOR_BIN } from "./tmux-terminal.js";

let server: FakeProviderServer;
let sandbox: Sandbox;

beforeAll(async () => {
  server = await startRoutedServer({ prompts: { first: "answer one", second: "answer two" } });
});
afterAll(() => server.close());
beforeEach(async () => {
  sandbox = await createSandbox();
  await sandbox.writeConfig(JSON.stringify({ autoTitle: false }));
});
afterEach(() => sandbox.remove());

/** Runs `arbor <args> | <reader>` in bash; returns arbor's stderr and exit status. */
function piped(args: string, reader: string) {
  const script = `"${process.execPath}" "${ARBOR_BIN}" ${args} 2>"$ERR_FILE" | ${reader} >/dev/null; echo "\${PIPESTATUS[0]}"`;
  const errFile = join(sandbox.root, "stderr.txt");
  const result = spawnSync("bash", ["-c", script], {
    cwd: sandbox.project,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: sandbox.home, ERR_FILE: errFile },
    encoding: "utf8",
  });
  return { status: Number(result.stdout.trim()), stderrFile: errFile };
}

describe("arbor in a pipeline and across runs", () => {
  it("ends quietly when the reader closes the pipe early (head), whatever it was printing", async () => {
    const paths = resolveArborPaths({ HOME: sandbox.home });
    await writeRawSession(sessionDirFor(paths, sandbox.project), "big.jsonl", {
      id: "019a0000-cccc-7000-8000-000000000001",
      cwd: sandbox.project,
      title: "Big",
      user: "question",
      assistant: "word ".repeat(600_000),
    });
    for (const [args, reader] of [
      ["sessions show 019a0000-cccc --json", "head -c 100"],
      ["sessions show 019a0000-cccc", "head -n 1"],
      ["sessions list", "head -c 1"],
      ["--help", "head -c 1"],
    ] as const) {
      const { status, stderrFile } = piped(args, reader);
      const stderr = await readFile(stderrFile, "utf8");
      expect(stderr, args).toBe("");
      expect(status, args).toBe(0);
    }
  });

  it("-c continues the newest session of the directory", async () => {
    const env = sandbox.env(server.openaiBaseURL);
    expect((await runArbor(["-p", "first"], { cwd: sandbox.project, env })).code).toBe(0);
    const second = await runArbor(["-c", "-p", "second"], { cwd: sandbox.project, env });
    expect(second.stdout).toBe("answer two\n");
    const files = await sandbox.sessionFiles();
    expect(files).toHaveLength(1);
    const text = await readFile(files[0] ?? "", "utf8");
    expect(text).toContain("answer one");
    expect(text).toContain("answer two");
  });
});
