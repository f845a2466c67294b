import { spawn } from "node:child_process";
import { CheckpointError } from "./checkpoint-error.js";

/** Where a shadow store lives and how its git is run. */
export interface ShadowGitOptions {
  /** The git program. Default `git`, looked up on `path`. */
  gitBinary: string;
  /** The `PATH` git is looked up on and runs with. */
  path: string;
  /** The store's git directory. */
  gitDir: string;
  /** The store's own index file (never the user's). */
  indexFile: string;
  /** The workspace, git's work tree. */
  workTree: string;
  /** An empty folder: git's `HOME`, so no user config, identity or ignore file is read. */
  emptyHome: string;
  /** An empty folder for `core.hooksPath`, so no hook ever runs. */
  hooksDir: string;
}

/** What one git run printed. */
export interface GitOutput {
  stdout: Buffer;
  stderr: string;
  exitCode: number;
}

/**
 * Settings passed on every run, above anything a config file could say: no hooks, no
 * fsmonitor or untracked cache, no line-ending conversion, no background maintenance, and
 * symlinks stored as symlinks.
 */
function configArgs(options: ShadowGitOptions): string[] {
  const settings = {
    "core.hooksPath": options.hooksDir,
    "core.fsmonitor": "false",
    "core.untrackedCache": "false",
    "core.autocrlf": "false",
    "core.safecrlf": "false",
    "core.symlinks": "true",
    "core.ignoreCase": "false",
    "core.quotePath": "false",
    "core.precomposeUnicode": "false",
    "core.excludesFile": "",
    "core.attributesFile": "",
    "gc.auto": "0",
    "maintenance.auto": "false",
    "commit.gpgSign": "false",
    "advice.addEmbeddedRepo": "false",
    "advice.addIgnoredFile": "false",
  };
  return Object.entries(settings).flatMap(([key, value]) => ["-c", `${key}=${value}`]);
}

/** The whole environment git runs with: nothing of the user's is passed through. */
function gitEnvironment(options: ShadowGitOptions): Record<string, string> {
  return {
    PATH: options.path,
    HOME: options.emptyHome,
    XDG_CONFIG_HOME: options.emptyHome,
    GIT_DIR: options.gitDir,
    GIT_WORK_TREE: options.workTree,
    GIT_INDEX_FILE: options.indexFile,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    GIT_AUTHOR_NAME: "Arbor",
    GIT_AUTHOR_EMAIL: "checkpoints@arbor.invalid",
    GIT_COMMITTER_NAME: "Arbor",
    GIT_COMMITTER_EMAIL: "checkpoints@arbor.invalid",
    LC_ALL: "C",
  };
}

/** Runs git against one shadow store. */
export class ShadowGit {
  readonly #options: ShadowGitOptions;
  readonly #env: Record<string, string>;
  readonly #config: string[];

  constructor(options: ShadowGitOptions) {
    this.#options = options;
    this.#env = gitEnvironment(options);
    this.#config = configArgs(options);
  }

  /** The same store run against another work tree and index (a fork's folder). */
  withWorkTree(workTree: string, indexFile: string): ShadowGit {
    return new ShadowGit({ ...this.#options, workTree, indexFile });
  }

  /**
   * Runs git with `args`, feeding `input` on stdin.
   * @throws CheckpointError `git_unavailable` when git cannot be started
   */
  run(args: readonly string[], input?: string | Buffer): Promise<GitOutput> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.#options.gitBinary, [...this.#config, ...args], {
        cwd: this.#options.workTree,
        env: this.#env,
        stdio: ["pipe", "pipe", "pipe"],
      });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
      child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
      child.stdin.on("error", () => undefined);
      child.on("error", (error: NodeJS.ErrnoException) => {
        reject(
          new CheckpointError(
            "git_unavailable",
            `Checkpoints need the git program, which could not be run (${error.code ?? error.message}); install git or put it on the PATH.`,
            { cause: error },
          ),
        );
      });
      child.on("close", (code) => {
        resolve({
          stdout: Buffer.concat(out),
          stderr: Buffer.concat(err).toString("utf8"),
          exitCode: code ?? 1,
        });
      });
      child.stdin.end(input);
    });
  }

  /**
   * Runs git and returns its output, or throws when it fails.
   * @throws CheckpointError `busy` when another process holds the store's lock, `git_failed` otherwise
   */
  async ok(args: readonly string[], input?: string | Buffer): Promise<Buffer> {
    const result = await this.run(args, input);
    if (result.exitCode === 0) return result.stdout;
    throw gitFailure(args, result.stderr);
  }

  /** Like {@link ok}, as trimmed text. */
  async text(args: readonly string[], input?: string | Buffer): Promise<string> {
    return (await this.ok(args, input)).toString("utf8").trim();
  }
}

/** The error for a failed git run. */
export function gitFailure(args: readonly string[], stderr: string): CheckpointError {
  const said = stderr.trim().split("\n").slice(-3).join(" ");
  if (/index\.lock|\.lock': File exists/.test(stderr)) {
    return new CheckpointError(
      "busy",
      `The checkpoint store is in use by another process (${said}); try again when it is done.`,
    );
  }
  return new CheckpointError("git_failed", `git ${args[0] ?? ""} failed: ${said}`);
}

/** Splits git's `-z` output into its NUL-terminated fields. */
export function nulFields(output: Buffer): string[] {
  const text = output.toString("utf8");
  const fields = text.split("\0");
  if (fields.at(-1) === "") fields.pop();
  return fields;
}
