import { constants } from "node:fs";
import { type FileHandle, lstat, mkdir, open, readlink, realpath } from "node:fs/promises";
import { basename, dirname, isAbsolute, sep } from "node:path";
import {
  isInsideRoot,
  kindOf,
  outsideWorkspace,
  quotePath,
  realWorkspaceRoot,
  resolveInWorkspace,
} from "./workspace-path.js";
import { WorkspaceToolError } from "./workspace-tool-error.js";

/** The most bytes one `write` or `edit` stores in a file. */
export const MAX_WRITE_BYTES = 4 * 1024 * 1024;

/**
 * Opened for writing without following a final symlink (one swapped in after the check
 * fails the open), without blocking on a FIFO, never as the controlling terminal. The
 * file is truncated only after it is known to be a regular file inside the workspace.
 */
const WRITE_FLAGS =
  constants.O_WRONLY |
  constants.O_CREAT |
  (constants.O_NONBLOCK ?? 0) |
  (constants.O_NOFOLLOW ?? 0) |
  (constants.O_NOCTTY ?? 0);

/** Options of {@link writeWorkspaceFile}. */
export interface WriteWorkspaceFileOptions {
  /** The most bytes written. Default {@link MAX_WRITE_BYTES}. */
  maxBytes?: number;
  /** Test seam: runs between the path checks and the open, where a swap would race. */
  beforeOpen?: () => Promise<void>;
}

/** The nearest folder of `absolute` that exists, and the names below it that do not. */
async function existingAncestor(absolute: string): Promise<{ dir: string; missing: string[] }> {
  const missing: string[] = [];
  let dir = absolute;
  for (;;) {
    const found = await lstat(dir).then(
      () => true,
      () => false,
    );
    if (found) return { dir, missing };
    const parent = dirname(dir);
    if (parent === dir) return { dir, missing };
    missing.unshift(basename(dir));
    dir = parent;
  }
}

/**
 * Resolves the folder a file is written in, creating missing folders inside the
 * workspace: the nearest existing ancestor must resolve (symlinks followed) inside it,
 * and the folder is checked again once it exists.
 */
async function workspaceParent(root: string, realRoot: string, path: string): Promise<string> {
  const absolute = isAbsolute(path) ? path : `${root}${sep}${path}`;
  const { dir, missing } = await existingAncestor(dirname(absolute));
  const realDir = await realpath(dir).catch(() => {
    throw new WorkspaceToolError("not_found", `${quotePath(path)}: its folder cannot be resolved.`);
  });
  if (!isInsideRoot(realRoot, realDir)) throw outsideWorkspace(path);
  if (missing.some((name) => name === ".." || name === ".")) throw outsideWorkspace(path);
  const target = missing.length === 0 ? realDir : `${realDir}${sep}${missing.join(sep)}`;
  await mkdir(target, { recursive: true });
  return resolveInWorkspace(root, realRoot, target);
}

/**
 * Writes a whole text file of the workspace for the model, creating it (and its missing
 * folders) when needed. Only a regular file whose folder's real path lies inside the
 * workspace is written: a symlink as the file itself, a FIFO, a device or a folder is
 * refused, and the open descriptor is checked again before anything is truncated.
 *
 * @returns the number of bytes written and whether the file is new
 * @throws WorkspaceToolError when the path leads outside, is not a regular file, or the
 * text is over the cap
 */
export async function writeWorkspaceFile(
  root: string,
  path: string,
  text: string,
  options: WriteWorkspaceFileOptions = {},
): Promise<{ bytes: number; created: boolean }> {
  if (path.includes("\0")) {
    throw new WorkspaceToolError("invalid_path", `${quotePath(path)} contains a NUL character.`);
  }
  if (path === "" || path.endsWith("/")) {
    throw new WorkspaceToolError("invalid_path", `${quotePath(path)} does not name a file.`);
  }
  const data = Buffer.from(text, "utf8");
  const maxBytes = options.maxBytes ?? MAX_WRITE_BYTES;
  if (data.length > maxBytes) {
    throw new WorkspaceToolError(
      "too_large",
      `Refused: the text for ${quotePath(path)} has ${data.length} bytes; at most ${maxBytes} are written at once.`,
    );
  }
  const realRoot = await realWorkspaceRoot(root);
  const parent = await workspaceParent(root, realRoot, path);
  const file = `${parent}${sep}${basename(path)}`;
  const existing = await lstat(file).catch(() => undefined);
  if (existing?.isSymbolicLink()) {
    throw new WorkspaceToolError(
      "not_a_regular_file",
      `Refused: ${quotePath(path)} is a symbolic link; write the file it points to by its own path.`,
    );
  }
  if (existing && !existing.isFile()) {
    throw new WorkspaceToolError(
      "not_a_regular_file",
      `Refused: ${quotePath(path)} is ${kindOf(existing)}, not a regular file.`,
    );
  }
  await options.beforeOpen?.();
  let handle: FileHandle;
  try {
    handle = await open(file, WRITE_FLAGS, 0o644);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP") {
      throw new WorkspaceToolError(
        "not_a_regular_file",
        `Refused: ${quotePath(path)} became a symbolic link.`,
      );
    }
    if (code === "ENXIO" || code === "EISDIR") {
      throw new WorkspaceToolError(
        "not_a_regular_file",
        `Refused: ${quotePath(path)} is not a regular file.`,
      );
    }
    if (code === "ENOENT") throw outsideWorkspace(path);
    throw error;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) {
      throw new WorkspaceToolError(
        "not_a_regular_file",
        `Refused: ${quotePath(path)} is ${kindOf(info)}, not a regular file.`,
      );
    }
    const opened = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
    if (opened !== undefined && !isInsideRoot(realRoot, opened)) throw outsideWorkspace(path);
    await handle.truncate(0);
    await handle.write(data, 0, data.length, 0);
    return { bytes: data.length, created: existing === undefined };
  } finally {
    await handle.close();
  }
}
