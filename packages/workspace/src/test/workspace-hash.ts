import { createHash } from "node:crypto";
import { lstat, readdir, readFile, readlink } from "node:fs/promises";
import { join } from "node:path";

/** Options of {@link hashWorkspace}. */
export interface HashWorkspaceOptions {
  /** Top-level or nested folder names left out wherever they occur. Default `[".git"]`. */
  skip?: readonly string[];
}

/**
 * A content hash of a folder: every file's path, kind, executable bit and bytes (a
 * symlink's target, never what it points to), in a fixed order. Folders count only through
 * what they hold (an empty folder is no content, as in git). Two folders with the same
 * files hash the same, wherever they lie; tests compare a workspace before and after a
 * restore with it.
 *
 * @example
 * ```ts
 * const before = await hashWorkspace(dir);
 * await store.restore(id);
 * expect(await hashWorkspace(dir)).toBe(before);
 * ```
 */
export async function hashWorkspace(
  dir: string,
  options: HashWorkspaceOptions = {},
): Promise<string> {
  const skip = new Set(options.skip ?? [".git"]);
  const hash = createHash("sha256");
  const visit = async (folder: string, prefix: string): Promise<void> => {
    const names = (await readdir(folder)).sort();
    for (const name of names) {
      if (skip.has(name)) continue;
      const path = join(folder, name);
      const rel = `${prefix}${name}`;
      const info = await lstat(path);
      if (info.isDirectory()) {
        await visit(path, `${rel}/`);
      } else if (info.isSymbolicLink()) {
        hash.update(`l\0${rel}\0${await readlink(path)}\0`);
      } else if (info.isFile()) {
        const executable = (info.mode & 0o100) !== 0 ? "x" : "-";
        hash.update(`f\0${rel}\0${executable}\0${info.size}\0`);
        hash.update(await readFile(path));
      } else {
        hash.update(`o\0${rel}\0`);
      }
    }
  };
  await visit(dir, "");
  return hash.digest("hex");
}
