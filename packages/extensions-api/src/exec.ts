import { spawn } from "node:child_process";
import { statSync } from "node:fs";
import { ExtensionApiError } from "./errors.js";

/** Options of {@link execCommand}. */
export interface ExecOptions {
  /** The working directory; the extension API defaults it to the project directory. */
  cwd?: string;
  /** Kills the process after this many milliseconds. No limit when absent. */
  timeoutMs?: number;
  /** Kills the process when aborted. */
  signal?: AbortSignal;
  /** The environment; the parent's when absent. */
  env?: Record<string, string | undefined>;
  /** How long a process may take to exit after SIGTERM before it gets SIGKILL. Default 2000. */
  killGraceMs?: number;
  /** Keeps at most this many bytes of each of stdout and stderr. Default 10 MiB. */
  maxOutputBytes?: number;
}

/** How a process ended. */
export interface ExecResult {
  stdout: string;
  stderr: string;
  /** The exit code, or `null` when a signal ended the process. */
  code: number | null;
  /** True when `exec` killed the process (timeout or abort). */
  killed: boolean;
  /** True when the timeout fired. */
  timedOut: boolean;
  /** True when stdout or stderr was cut at `maxOutputBytes`. */
  truncated: boolean;
}

const DEFAULT_KILL_GRACE_MS = 2000;
const DEFAULT_MAX_OUTPUT_BYTES = 10 * 1024 * 1024;

/**
 * Runs a program without a shell and collects its output. On timeout or abort it sends
 * SIGTERM to the process group, then SIGKILL after a grace period, and resolves with
 * `killed: true`. A non-zero exit resolves too; only a process that cannot start rejects,
 * with an {@link ExtensionApiError} of code `spawn_failed`.
 *
 * @example
 * ```ts
 * const { stdout, code } = await execCommand("git", ["status", "--short"], { timeoutMs: 5000 });
 * ```
 */
export function execCommand(
  command: string,
  args: readonly string[] = [],
  options: ExecOptions = {},
): Promise<ExecResult> {
  const limit = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const grace = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  // A process group lets a kill reach the grandchildren too (POSIX only).
  const group = process.platform !== "win32";
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) {
      resolve({
        stdout: "",
        stderr: "",
        code: null,
        killed: true,
        timedOut: false,
        truncated: false,
      });
      return;
    }
    const child = spawn(command, [...args], {
      cwd: options.cwd,
      env: options.env,
      shell: false,
      detached: group,
      stdio: ["ignore", "pipe", "pipe"],
      windowsHide: true,
    });
    const out = new OutputBuffer(limit);
    const err = new OutputBuffer(limit);
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    let killed = false;
    let timedOut = false;
    let graceTimer: NodeJS.Timeout | undefined;
    const signalGroup = (sig: NodeJS.Signals) => {
      try {
        if (group && child.pid !== undefined) process.kill(-child.pid, sig);
        else child.kill(sig);
      } catch {
        // Already gone.
      }
    };
    const kill = () => {
      if (killed) return;
      killed = true;
      signalGroup("SIGTERM");
      graceTimer = setTimeout(() => signalGroup("SIGKILL"), grace);
      graceTimer.unref();
    };
    const timer =
      options.timeoutMs !== undefined
        ? setTimeout(() => {
            timedOut = true;
            kill();
          }, options.timeoutMs)
        : undefined;
    const onAbort = () => kill();
    options.signal?.addEventListener("abort", onAbort, { once: true });
    const cleanUp = () => {
      if (timer) clearTimeout(timer);
      if (graceTimer) clearTimeout(graceTimer);
      options.signal?.removeEventListener("abort", onAbort);
    };
    child.once("error", (error) => {
      cleanUp();
      reject(
        new ExtensionApiError(
          "spawn_failed",
          `could not run ${command}: ${spawnProblem(error, options.cwd)}`,
          {
            cause: error,
          },
        ),
      );
    });
    child.once("close", (code) => {
      cleanUp();
      // Leftover grandchildren of a killed group must not outlive the call.
      if (killed) signalGroup("SIGKILL");
      resolve({
        stdout: out.text(),
        stderr: err.text(),
        code,
        killed,
        timedOut,
        truncated: out.truncated || err.truncated,
      });
    });
  });
}

/**
 * Says why a process did not start. Node reports a missing working directory as the
 * program being missing (ENOENT), which sends people looking in the wrong place.
 */
function spawnProblem(error: Error, cwd: string | undefined): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT" && cwd !== undefined && !isDirectory(cwd))
    return `the working directory ${cwd} does not exist (pass an existing \`cwd\`)`;
  if (code === "ENOENT") return `${error.message} (is the program installed and on PATH?)`;
  return error.message;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

class OutputBuffer {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  truncated = false;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    const room = this.limit - this.size;
    if (room <= 0) {
      this.truncated = true;
      return;
    }
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    if (kept !== chunk) this.truncated = true;
    this.chunks.push(kept);
    this.size += kept.length;
  }

  text(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }
}
