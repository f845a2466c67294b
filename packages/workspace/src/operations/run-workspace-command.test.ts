import { mkdir, mkdtemp, readFile, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runWorkspaceCommand } from "./run-workspace-command.js";
import { WorkspaceToolError } from "./workspace-tool-error.js";

let base: string;
let project: string;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "arbor-command-"));
  project = join(base, "project");
  await mkdir(join(project, "sub"), { recursive: true });
  await mkdir(join(base, "outside"));
  await symlink(join(base, "outside"), join(project, "out-link"));
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

/** Whether a process runs (a zombie waiting for a parent that never reaps it does not). */
const alive = async (pid: number): Promise<boolean> => {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  return stat !== "" && !/^\d+ \(.*\) [ZX]/.test(stat);
};

describe("runWorkspaceCommand", () => {
  it("runs in the workspace or a folder of it, with output, exit code and closed stdin", async () => {
    const result = await runWorkspaceCommand(project, "pwd; echo err >&2; cat; exit 3");
    expect(result.output).toContain(project);
    expect(result.output).toContain("err");
    expect(result.exitCode).toBe(3);
    const inSub = await runWorkspaceCommand(project, "pwd", { cwd: "sub" });
    expect(inSub.output.trim()).toBe(join(project, "sub"));
  });

  it("refuses a working folder outside: .., absolute, a symlinked folder", async () => {
    for (const cwd of ["..", "out-link", join(base, "outside"), "/", "/proc/self/root/tmp"]) {
      const error = await runWorkspaceCommand(project, "pwd", { cwd }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(WorkspaceToolError.isInstance(error), cwd).toBe(true);
      expect((error as WorkspaceToolError).code).toBe("outside_workspace");
    }
  });

  it("stops a command that ignores SIGTERM at the timeout, with its whole process group", async () => {
    const started = Date.now();
    const result = await runWorkspaceCommand(
      project,
      "trap '' TERM; (trap '' TERM; sleep 60) & echo child $!; echo started; sleep 60",
      { timeoutS: 1, killGraceMs: 300 },
    );
    expect(result.timedOut).toBe(true);
    expect(result.output).toContain("started");
    expect(result.signal).toBe("SIGKILL");
    expect(Date.now() - started).toBeLessThan(20_000);
    const child = Number(/child (\d+)/.exec(result.output)?.[1]);
    expect(child).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await alive(child)).toBe(false);
  });

  it("stops the process group when aborted, and when the shell exits with a child still holding the output", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const aborted = await runWorkspaceCommand(project, "sleep 60 & sleep 60", {
      signal: controller.signal,
      killGraceMs: 300,
    });
    expect(aborted.aborted).toBe(true);
    const started = Date.now();
    const background = await runWorkspaceCommand(project, "sleep 60 & echo done");
    expect(background.output).toBe("done\n");
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it("caps huge output and counts what it dropped; binary output is shown, NULs replaced", async () => {
    const huge = await runWorkspaceCommand(project, "head -c 3000000 /dev/zero | tr '\\0' 'x'", {
      maxOutputBytes: 1000,
    });
    expect(huge.output).toBe("x".repeat(1000));
    expect(huge.droppedBytes).toBe(3_000_000 - 1000);
    const binary = await runWorkspaceCommand(project, "printf 'a\\0b\\033[2J'");
    expect(binary.binary).toBe(true);
    expect(binary.output).toBe("a\uFFFDb\u001b[2J");
    const endless = await runWorkspaceCommand(project, "yes", { maxOutputBytes: 100, timeoutS: 1 });
    expect(endless.output).toHaveLength(100);
    expect(endless.timedOut).toBe(true);
  });

  it("passes only the environment it is given", async () => {
    const result = await runWorkspaceCommand(project, 'echo "[$OPENAI_API_KEY][$KEEP]"', {
      env: { PATH: "/usr/bin:/bin", KEEP: "kept" },
    });
    expect(result.output).toBe("[][kept]\n");
  });
});
