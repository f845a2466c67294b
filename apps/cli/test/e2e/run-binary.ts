import { spawn } from "node:child_process";
import { ARBOR_BIN } from "./tmux-terminal.js";

/** What a finished `arbor` process printed and returned. */
export interface BinaryResult {
  code: number;
  stdout: string;
  stderr: string;
  durationMs: number;
}

/** Runs the built binary with only the given environment (plus PATH), optionally piping stdin. */
export function runArbor(
  args: readonly string[],
  options: {
    cwd: string;
    env: Record<string, string>;
    stdin?: string;
    /** Sends SIGINT once the output printed so far matches (as Ctrl+C in a terminal). */
    interruptWhen?: (stdout: string) => boolean;
    /** The signal `interruptWhen` sends. Default SIGINT. */
    signal?: NodeJS.Signals;
  },
): Promise<BinaryResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [ARBOR_BIN, ...args], {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...options.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let interrupted = false;
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
      if (!interrupted && options.interruptWhen?.(stdout)) {
        interrupted = true;
        child.kill(options.signal ?? "SIGINT");
      }
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    child.on("error", reject);
    child.on("close", (code) =>
      resolve({ code: code ?? -1, stdout, stderr, durationMs: Date.now() - started }),
    );
    child.stdin.end(options.stdin ?? "");
  });
}
