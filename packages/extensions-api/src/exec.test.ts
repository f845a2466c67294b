import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ExtensionApiError } from "./errors.js";
import { execCommand } from "./exec.js";
import { ExtensionRunner } from "./runner.js";

const node = process.execPath;

/** Alive and not a zombie (a container's init may never reap an orphan). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return true;
  }
}

describe("execCommand", () => {
  it("collects stdout, stderr and the exit code", async () => {
    const result = await execCommand(node, [
      "-e",
      "process.stdout.write('out'); process.stderr.write('err'); process.exit(3)",
    ]);
    expect(result).toEqual({
      stdout: "out",
      stderr: "err",
      code: 3,
      killed: false,
      timedOut: false,
      truncated: false,
    });
  });

  it("passes arguments verbatim, without a shell", async () => {
    const result = await execCommand(node, [
      "-e",
      "console.log(process.argv[1])",
      "$HOME; echo hi",
    ]);
    expect(result.stdout).toBe("$HOME; echo hi\n");
  });

  it("kills a process that runs past the timeout", async () => {
    const started = Date.now();
    const result = await execCommand(node, ["-e", "setInterval(() => {}, 1000)"], {
      timeoutMs: 100,
    });
    expect(result).toMatchObject({ killed: true, timedOut: true, code: null });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("kills the processes the program started, too", async () => {
    const script = [
      "const { spawn } = require('node:child_process');",
      "const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });",
      "console.log(child.pid);",
      "setInterval(() => {}, 1000);",
    ].join(" ");
    const result = await execCommand(node, ["-e", script], { timeoutMs: 1000 });
    expect(result.killed).toBe(true);
    const grandchild = Number(result.stdout.trim());
    expect(grandchild).toBeGreaterThan(0);
    await new Promise((done) => setTimeout(done, 100));
    expect(isRunning(grandchild)).toBe(false);
  });

  it("escalates to SIGKILL when the process ignores SIGTERM", async () => {
    const result = await execCommand(
      node,
      ["-e", "process.on('SIGTERM', () => {}); console.log('ready'); setInterval(() => {}, 1000)"],
      { timeoutMs: 1500, killGraceMs: 100 },
    );
    expect(result).toMatchObject({ killed: true, timedOut: true, code: null, stdout: "ready\n" });
  });

  it("kills on abort", async () => {
    const controller = new AbortController();
    const running = execCommand(node, ["-e", "setInterval(() => {}, 1000)"], {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 50);
    expect(await running).toMatchObject({ killed: true, timedOut: false });
    const already = await execCommand(node, ["-e", ""], { signal: AbortSignal.abort() });
    expect(already).toMatchObject({ killed: true, code: null });
  });

  it("rejects with spawn_failed when the program does not exist", async () => {
    const error = await execCommand("arbor-no-such-program-xyz").catch((e: unknown) => e);
    expect(ExtensionApiError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "spawn_failed" });
  });

  it("says so when the working directory is missing, not that the program is", async () => {
    const missing = join(tmpdir(), "arbor-no-such-dir-xyz");
    const error = await execCommand(node, ["-e", ""], { cwd: missing }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "spawn_failed" });
    expect((error as Error).message).toContain(`the working directory ${missing} does not exist`);
    const noProgram = await execCommand("arbor-no-such-program-xyz").catch((e: unknown) => e);
    expect((noProgram as Error).message).toContain("is the program installed and on PATH?");
  });

  it("truncates output at maxOutputBytes", async () => {
    const result = await execCommand(node, ["-e", "process.stdout.write('x'.repeat(5000))"], {
      maxOutputBytes: 100,
    });
    expect(result.stdout).toHaveLength(100);
    expect(result.truncated).toBe(true);
  });

  it("runs in the project directory when called through the extension API", async () => {
    const dir = await mkdtemp(join(tmpdir(), "arbor-exec-"));
    try {
      let cwd: string | undefined;
      const runner = new ExtensionRunner({ cwd: dir });
      await runner.addExtension("probe", async (arbor) => {
        cwd = (await arbor.exec(node, ["-e", "process.stdout.write(process.cwd())"])).stdout;
      });
      const { realpath } = await import("node:fs/promises");
      expect(cwd).toBe(await realpath(dir));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
