import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ExtensionApiError } from "./errors.js";
import { execCommand } from "./exec.js";
import { ExtensionRunner } from "./runner.js";

const node = process.execPath;

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
    expect(Date.now() - started).toBeLessThan(5000);
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
