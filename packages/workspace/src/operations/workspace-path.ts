import type { Stats } from "node:fs";
import { realpath } from "node:fs/promises";
import { isAbsolute, relative, sep } from "node:path";
import { WorkspaceToolError } from "./workspace-tool-error.js";

/** Whether `path` is `root` itself or lies below it (both real, absolute paths). */
export function isInsideRoot(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** A path shown back to the model: as it gave it, with control characters escaped by JSON. */
export function quotePath(path: string): string {
  return JSON.stringify(path.length > 200 ? `${path.slice(0, 200)}…` : path);
}

/** The real path of the workspace root. */
export async function realWorkspaceRoot(root: string): Promise<string> {
  return realpath(root);
}

/**
 * Resolves a path the model gave to its real path (every symlink followed, `..` and `.`
 * folded) and refuses it unless that lies inside the workspace's real path. Absolute
 * paths, `../`, symlinked folders, `/proc/self/root/…` and trailing slashes all end up as
 * a real path checked the same way.
 *
 * @returns the real path, inside `realRoot`
 * @throws WorkspaceToolError `invalid_path`, `not_found`, `symlink_loop` or `outside_workspace`
 */
export async function resolveInWorkspace(
  root: string,
  realRoot: string,
  path: string,
): Promise<string> {
  if (path.includes("\0")) {
    throw new WorkspaceToolError("invalid_path", `${quotePath(path)} contains a NUL character.`);
  }
  let real: string;
  try {
    // Not path.resolve: folding `..` by text would differ from the kernel after a symlink,
    // and would drop a trailing slash that makes a file name an error.
    real = await realpath(isAbsolute(path) ? path : `${root}${sep}${path}`);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP") {
      throw new WorkspaceToolError(
        "symlink_loop",
        `${quotePath(path)} is a loop of symbolic links.`,
      );
    }
    if (code === "ENOENT" || code === "ENOTDIR") {
      throw new WorkspaceToolError(
        "not_found",
        `${quotePath(path)} does not exist (or is a link to nothing) in the working directory.`,
      );
    }
    throw new WorkspaceToolError(
      "invalid_path",
      `${quotePath(path)} cannot be resolved (${code ?? "error"}).`,
    );
  }
  if (!isInsideRoot(realRoot, real)) throw outsideWorkspace(path);
  return real;
}

/** The refusal for a path that leads out of the workspace. */
export function outsideWorkspace(path: string): WorkspaceToolError {
  return new WorkspaceToolError(
    "outside_workspace",
    `Refused: ${quotePath(path)} is outside the working directory (after following symbolic links); only files inside it can be read.`,
  );
}

/** What kind of file system object a stat describes, in words. */
export function kindOf(info: Stats): string {
  if (info.isDirectory()) return "a directory";
  if (info.isFIFO()) return "a named pipe (FIFO)";
  if (info.isCharacterDevice()) return "a character device";
  if (info.isBlockDevice()) return "a block device";
  if (info.isSocket()) return "a socket";
  if (info.isSymbolicLink()) return "a symbolic link";
  return info.isFile() ? "a regular file" : "not a regular file";
}
