import { spawn } from "node:child_process";
import { type CommandSandbox, sandboxArguments } from "./bubblewrap-sandbox.js";
import { realWorkspaceRoot, resolveInWorkspace } from "./workspace-path.js";

/** Default seconds a command may run. */
export const DEFAULT_COMMAND_TIMEOUT_S = 120;
/** The most seconds a command may be given. */
export const MAX_COMMAND_TIMEOUT_S = 600;
/** The most bytes of a command's output kept; beyond it the output is dropped, and counted. */
export const MAX_COMMAND_OUTPUT_BYTES = 8 * 1024 * 1024;
/** How long a process group gets between SIGTERM and SIGKILL. */
export const KILL_GRACE_MS = 2_000;

/** Options of {@link runWorkspaceCommand}. */
export interface RunWorkspaceCommandOptions {
  /** Folder to run in, relative to the workspace (confined like every path). Default: the root. */
  cwd?: string;
  /** Seconds before the process group is stopped. Default {@link DEFAULT_COMMAND_TIMEOUT_S}. */
  timeoutS?: number;
  /** Stops the process group (SIGTERM, then SIGKILL after {@link KILL_GRACE_MS}). */
  signal?: AbortSignal;
  /** Output bytes kept. Default {@link MAX_COMMAND_OUTPUT_BYTES}. */
  maxOutputBytes?: number;
  /** Milliseconds between SIGTERM and SIGKILL. Default {@link KILL_GRACE_MS}. */
  killGraceMs?: number;
  /** The environment of the command. Default: none but PATH=/usr/bin:/bin. */
  env?: Record<string, string>;
  /**
   * Runs the command inside bubblewrap: the workspace writable, the rest read-only, no
   * network unless allowed. Without it the command runs as the user.
   */
  sandbox?: CommandSandbox;
}

/** How a command ended. */
export interface WorkspaceCommandResult {
  /** stdout and stderr interleaved as they arrived, decoded as UTF-8. */
  output: string;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  /** Output bytes that were not kept because of the cap. */
  droppedBytes: number;
  /** Whether the output held NUL bytes (binary); they are shown as U+FFFD. */
  binary: boolean;
}

/**
 * Runs a shell command (`bash -c`) in a folder of the workspace, in a process group of its
 * own, so a timeout or an abort stops everything it started: SIGTERM to the group, then
 * SIGKILL when something ignores it. Output is capped in memory; stdin is closed.
 *
 * @throws WorkspaceToolError when `cwd` leads outside the workspace
 */
export async function runWorkspaceCommand(
  root: string,
  command: string,
  options: RunWorkspaceCommandOptions = {},
): Promise<WorkspaceCommandResult> {
  const realRoot = await realWorkspaceRoot(root);
  const cwd = await resolveInWorkspace(root, realRoot, options.cwd ?? ".");
  const timeoutMs =
    Math.min(options.timeoutS ?? DEFAULT_COMMAND_TIMEOUT_S, MAX_COMMAND_TIMEOUT_S) * 1000;
  const maxBytes = options.maxOutputBytes ?? MAX_COMMAND_OUTPUT_BYTES;
  const grace = options.killGraceMs ?? KILL_GRACE_MS;
  return new Promise((resolve, reject) => {
    const [file, args] = options.sandbox
      ? [
          options.sandbox.bwrap,
          [...sandboxArguments(realRoot, cwd, options.sandbox), "bash", "-c", command],
        ]
      : ["bash", ["-c", command]];
    const child = spawn(file, args, {
      cwd,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: options.env ?? { PATH: "/usr/local/bin:/usr/bin:/bin" },
    });
    const chunks: Buffer[] = [];
    let kept = 0;
    let droppedBytes = 0;
    let timedOut = false;
    let aborted = false;
    let killTimer: ReturnType<typeof setTimeout> | undefined;
    const onData = (chunk: Buffer) => {
      const room = maxBytes - kept;
      if (room <= 0) {
        droppedBytes += chunk.length;
        return;
      }
      const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
      chunks.push(part);
      kept += part.length;
      droppedBytes += chunk.length - part.length;
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    const stopGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        return; // already gone
      }
      killTimer ??= setTimeout(() => {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
        } catch {
          // already gone
        }
      }, grace);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stopGroup();
    }, timeoutMs);
    const onAbort = () => {
      aborted = true;
      stopGroup();
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener("abort", onAbort, { once: true });
    child.on("error", (error) => {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      reject(error);
    });
    // "close" waits for the pipes, which a background child of the command may hold open:
    // once the shell exits, its group is stopped too, so the pipes close.
    child.on("exit", () => {
      if (child.pid !== undefined) {
        try {
          process.kill(-child.pid, 0);
          stopGroup();
        } catch {
          // the group is empty
        }
      }
    });
    child.on("close", (exitCode, signal) => {
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      options.signal?.removeEventListener("abort", onAbort);
      const bytes = Buffer.concat(chunks);
      const binary = bytes.includes(0);
      const output = bytes.toString("utf8").replaceAll("\0", "\uFFFD");
      resolve({ output, exitCode, signal, timedOut, aborted, droppedBytes, binary });
    });
  });
}
