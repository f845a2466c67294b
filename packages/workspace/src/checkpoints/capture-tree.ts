import { lstat } from "node:fs/promises";
import { join } from "node:path";
import type { SkippedFile } from "./checkpoint-schema.js";
import { gitFailure, nulFields, type ShadowGit } from "./shadow-git.js";

/** Paths whose kind and size are read at once. */
const STAT_BATCH = 256;

/** The workspace as a tree of the shadow store, and the files left out of it. */
export interface CapturedTree {
  tree: string;
  skipped: SkippedFile[];
}

/**
 * Writes the workspace as it is now into the shadow store as a tree. One pass over the
 * workspace (`ls-files -o -m`, which trusts the store's index for files whose stat did not
 * change) finds what is new, changed or gone; only those paths are hashed into the index,
 * so a checkpoint after a small change costs about one `git status`. What `.gitignore`
 * ignores is never listed; files over `maxFileBytes`, unreadable ones and anything that is
 * neither a file nor a symlink (FIFOs, sockets) are left out, the first two named.
 */
export async function captureTree(
  git: ShadowGit,
  workspace: string,
  maxFileBytes: number,
): Promise<CapturedTree> {
  const skipped: SkippedFile[] = [];
  const add: string[] = [];
  const remove: string[] = [];
  const parents = new ParentCheck(workspace);
  const blocked = new Set<string>();
  const sortOne = async (path: string) => {
    const parent = await parents.firstNotFolder(path);
    if (parent !== undefined) {
      // A folder became a symlink or a file: its old entries go, and it is listed anew.
      return { path, parent };
    }
    return { path, info: await lstat(join(workspace, path)).catch(() => undefined) };
  };
  const sort = async (paths: readonly string[]) => {
    // A trailing slash is a nested git repository: left to its own git.
    const unique = [...new Set(paths.filter((listed) => !listed.endsWith("/")))];
    // Many paths (a first snapshot of a large workspace) are looked at a batch at a time.
    for (let at = 0; at < unique.length; at += STAT_BATCH) {
      const looked = await Promise.all(unique.slice(at, at + STAT_BATCH).map(sortOne));
      for (const { path, parent, info } of looked) {
        if (parent !== undefined) {
          remove.push(path);
          blocked.add(parent);
        } else if (info?.isFile() && info.size > maxFileBytes) {
          skipped.push({ path, reason: "too_large", bytes: info.size });
          remove.push(path); // a file that grew past the limit leaves the index too
        } else if (info?.isFile() || info?.isSymbolicLink()) {
          add.push(path);
        } else {
          remove.push(path); // gone, or a folder or special file now
        }
      }
    }
  };
  await sort(nulFields(await git.ok(["ls-files", "-z", "-o", "-m", "--exclude-standard"])));
  if (blocked.size > 0) {
    await updateIndex(git, remove.splice(0), ["--force-remove"]);
    const spec = [...blocked].map((path) => `:(top,literal)${path}`);
    await sort(
      nulFields(await git.ok(["ls-files", "-z", "-o", "--exclude-standard", "--", ...spec])),
    );
  }
  await updateIndex(git, remove, ["--force-remove"]);
  for (let round = 0; add.length > 0; round++) {
    const result = await git.run(
      ["update-index", "-z", "--add", "--remove", "--replace", "--stdin"],
      nulList(add),
    );
    if (result.exitCode === 0) break;
    // An unreadable file stops update-index; leave it out and go on with the others.
    const path = /^fatal: Unable to process path (.*)$/m.exec(result.stderr)?.[1];
    const at = path === undefined ? -1 : add.indexOf(path);
    if (path === undefined || at === -1 || round > 1000) {
      throw gitFailure(["update-index"], result.stderr);
    }
    add.splice(0, at + 1);
    skipped.push({ path, reason: "unreadable" });
    await updateIndex(git, [path], ["--force-remove"]);
  }
  const tree = await git.text(["write-tree"]);
  skipped.sort((a, b) => (a.path < b.path ? -1 : 1));
  return { tree, skipped };
}

async function updateIndex(git: ShadowGit, paths: readonly string[], flags: string[]) {
  if (paths.length > 0) await git.ok(["update-index", "-z", ...flags, "--stdin"], nulList(paths));
}

const nulList = (paths: readonly string[]) => paths.map((path) => `${path}\0`).join("");

/** Finds the first folder of a path that is not a real folder (a symlink, a file). */
class ParentCheck {
  readonly #folders = new Set<string>();

  constructor(readonly workspace: string) {}

  async firstNotFolder(path: string): Promise<string | undefined> {
    const parts = path.split("/").slice(0, -1);
    let folder = "";
    for (const part of parts) {
      folder = folder === "" ? part : `${folder}/${part}`;
      if (this.#folders.has(folder)) continue;
      const info = await lstat(join(this.workspace, folder)).catch(() => undefined);
      if (info === undefined) return undefined; // gone: the path is gone too
      if (!info.isDirectory()) return folder;
      this.#folders.add(folder);
    }
    return undefined;
  }
}
