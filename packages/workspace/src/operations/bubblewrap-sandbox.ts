import { execFile } from "node:child_process";

/**
 * How commands run inside bubblewrap (`bwrap`): the workspace writable, the rest of the
 * file system read-only, a private `/tmp`, no network unless allowed, and every other
 * namespace unshared, so the command and everything it starts die with the sandbox.
 */
export interface CommandSandbox {
  /** The `bwrap` executable, as {@link probeBubblewrap} found it. */
  bwrap: string;
  /** Whether commands may use the network. Default false. */
  allowNetwork?: boolean;
}

/** Whether bubblewrap can sandbox commands here, and why not. */
export type BubblewrapProbe =
  | { available: true; bwrap: string }
  | { available: false; reason: string };

/**
 * Tries bubblewrap once: runs `true` in a sandbox with every namespace unshared. Missing
 * `bwrap`, or a kernel or container that does not allow user namespaces, answers
 * `available: false` with the reason (to be shown once; the sandbox is then unavailable,
 * never silently skipped).
 * @param bwrap - the executable to try; default `bwrap` on the PATH
 */
export function probeBubblewrap(bwrap = "bwrap"): Promise<BubblewrapProbe> {
  return new Promise((resolve) => {
    execFile(
      bwrap,
      [...sandboxArguments("/", "/", { bwrap }), "true"],
      { timeout: 10_000 },
      (error, _stdout, stderr) => {
        if (!error) return resolve({ available: true, bwrap });
        const code = (error as NodeJS.ErrnoException).code;
        const reason =
          code === "ENOENT"
            ? `${bwrap} was not found (install bubblewrap: apt install bubblewrap)`
            : `${bwrap} cannot create a sandbox here: ${String(stderr).trim() || error.message}`;
        resolve({ available: false, reason });
      },
    );
  });
}

/**
 * The `bwrap` arguments (before the command) that sandbox a command run in `cwd` of the
 * workspace `root` (both real paths).
 */
export function sandboxArguments(root: string, cwd: string, sandbox: CommandSandbox): string[] {
  return [
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--tmpfs",
    "/tmp",
    ...(root === "/" ? [] : ["--bind", root, root]),
    "--unshare-all",
    ...(sandbox.allowNetwork ? ["--share-net"] : []),
    "--die-with-parent",
    "--chdir",
    cwd,
  ];
}
