import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

/** What {@link runRipgrep} collected. */
export interface RipgrepLines {
  lines: string[];
  /** Whether it stopped at `maxLines` (more would have followed). */
  truncated: boolean;
  /** ripgrep's exit code: 0 found, 1 nothing found, 2 an error (see `stderr`). */
  exitCode: number | null;
  stderr: string;
}

const available = new Map<string, Promise<boolean>>();

/** Whether the ripgrep binary `command` runs here; asked once per command name. */
export function ripgrepAvailable(command: string): Promise<boolean> {
  let known = available.get(command);
  if (!known) {
    known = new Promise((resolve) => {
      const child = spawn(command, ["--version"], { stdio: "ignore" });
      child.on("error", () => resolve(false));
      child.on("close", (code) => resolve(code === 0));
    });
    available.set(command, known);
  }
  return known;
}

/**
 * Runs ripgrep in `cwd` and collects up to `maxLines` lines of its output; at the cap (or
 * on abort) it is killed, so a search of a huge tree costs no more than what is shown.
 */
export function runRipgrep(
  command: string,
  args: readonly string[],
  cwd: string,
  options: { maxLines: number; signal?: AbortSignal },
): Promise<RipgrepLines> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...args], { cwd, stdio: ["ignore", "pipe", "pipe"] });
    const lines: string[] = [];
    let truncated = false;
    let stderr = "";
    const onAbort = () => child.kill("SIGKILL");
    options.signal?.addEventListener("abort", onAbort, { once: true });
    child.stderr.on("data", (chunk: Buffer) => {
      if (stderr.length < 4000) stderr += chunk.toString("utf8");
    });
    const reader = createInterface({ input: child.stdout, crlfDelay: Number.POSITIVE_INFINITY });
    reader.on("line", (line) => {
      if (lines.length >= options.maxLines) {
        truncated = true;
        child.kill("SIGKILL");
        reader.close();
        return;
      }
      lines.push(line);
    });
    child.on("error", (error) => {
      options.signal?.removeEventListener("abort", onAbort);
      reject(error);
    });
    child.on("close", (exitCode) => {
      options.signal?.removeEventListener("abort", onAbort);
      resolve({ lines, truncated, exitCode, stderr: stderr.trim() });
    });
  });
}

/**
 * ripgrep arguments that keep only files matching a glob. A name glob becomes a file type
 * (a type, unlike `--glob`, never overrides `.gitignore`); a path glob uses `--glob`.
 */
export function ripgrepGlobArgs(glob: string): string[] {
  if (glob.includes("/")) return ["--glob", glob];
  return ["--type-add", `arborglob:${glob}`, "--type", "arborglob"];
}
