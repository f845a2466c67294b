import { randomBytes } from "node:crypto";
import type { Stats } from "node:fs";
import {
  chmod,
  lstat,
  mkdir,
  readdir,
  rename,
  rmdir,
  symlink,
  unlink,
  writeFile,
} from "node:fs/promises";
import { dirname, join } from "node:path";
import { CheckpointError } from "./checkpoint-error.js";
import type { KeptPath } from "./checkpoint-schema.js";

/** A file a restore puts in place: its path, git mode and blob. */
export interface PlannedWrite {
  path: string;
  /** `100644`, `100755` or `120000` (a symlink). */
  mode: string;
  sha: string;
  /** True when the workspace's current snapshot has nothing at this path. */
  added: boolean;
}

/** What a restore changes: files to delete (known to the current snapshot) and to write. */
export interface RestorePlan {
  deletes: string[];
  writes: PlannedWrite[];
}

/** What applying a plan did (or, in a dry run, would do). */
export interface AppliedRestore {
  written: string[];
  deleted: string[];
  kept: KeptPath[];
}

/** Options of {@link applyRestore}. */
export interface ApplyRestoreOptions {
  dryRun: boolean;
  /** The contents of the blobs the writes need, fetched in one go. */
  readBlobs: (shas: readonly string[]) => Promise<Map<string, Buffer>>;
}

/** Files written at once; enough to keep libuv's thread pool busy. */
const PARALLEL_WRITES = 16;

const lstatOrUndefined = (path: string): Promise<Stats | undefined> =>
  lstat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT" || error.code === "ENOTDIR") return undefined;
    throw error;
  });

/**
 * Applies a restore plan to the workspace: deletes first (then the folders they emptied),
 * then writes, each through a temporary file renamed over the path, so a file is either
 * old or new, never half-written. Nothing is written through a symlink: every folder on a
 * path must be a real folder, and a path held by something no snapshot knows is kept as
 * it is. A dry run changes nothing and reports the same lists.
 *
 * @throws CheckpointError `restore_failed` on a file system error, naming the path
 */
export async function applyRestore(
  root: string,
  plan: RestorePlan,
  options: ApplyRestoreOptions,
): Promise<AppliedRestore> {
  const { dryRun } = options;
  const result: AppliedRestore = { written: [], deleted: [], kept: [] };
  const deleting = new Set(plan.deletes);
  const folders = new FolderCheck(root, dryRun, deleting);
  const blobs = dryRun
    ? new Map<string, Buffer>()
    : await options.readBlobs([...new Set(plan.writes.map((write) => write.sha))]);

  for (const path of [...plan.deletes].sort()) {
    await step(path, async () => {
      if (!(await folders.parentsAreFolders(path, false))) {
        result.kept.push({ path, reason: "blocked_parent" });
        return;
      }
      const info = await lstatOrUndefined(join(root, path));
      if (info === undefined) return;
      if (info.isDirectory()) {
        result.kept.push({ path, reason: "folder_not_empty" });
        return;
      }
      if (!dryRun) await unlink(join(root, path));
      result.deleted.push(path);
    });
  }
  if (!dryRun) await pruneEmptied(root, result.deleted);

  const ready: Array<{ write: PlannedWrite; currentMode: number | undefined }> = [];
  for (const write of [...plan.writes].sort((a, b) => (a.path < b.path ? -1 : 1))) {
    const { path } = write;
    await step(path, async () => {
      if (!(await folders.parentsAreFolders(path, true))) {
        result.kept.push({ path, reason: "blocked_parent" });
        return;
      }
      const target = join(root, path);
      const info = deleting.has(path) && dryRun ? undefined : await lstatOrUndefined(target);
      if (info?.isDirectory()) {
        const emptied = dryRun
          ? await onlyDeletedBelow(root, path, deleting)
          : await rmdir(target).then(
              () => true,
              () => false,
            );
        if (!emptied) {
          result.kept.push({ path, reason: "folder_not_empty" });
          return;
        }
      } else if (info !== undefined && write.added) {
        result.kept.push({ path, reason: "unknown_file" });
        return;
      }
      ready.push({ write, currentMode: info?.isFile() ? info.mode : undefined });
    });
  }
  // The folders are in place: the files themselves are written a few at a time.
  for (let at = 0; at < ready.length; at += PARALLEL_WRITES) {
    const batch = ready.slice(at, at + PARALLEL_WRITES);
    const outcomes = await Promise.allSettled(
      batch.map(({ write, currentMode }) =>
        step(write.path, async () => {
          if (dryRun) return;
          const bytes = blobs.get(write.sha);
          if (bytes === undefined) throw new Error(`the store has no blob ${write.sha}`);
          await replaceFile(join(root, write.path), write.mode, bytes, currentMode);
        }),
      ),
    );
    const failed = outcomes.find((outcome) => outcome.status === "rejected");
    if (failed) throw failed.reason;
    result.written.push(...batch.map(({ write }) => write.path));
  }
  return result;
}

/** Runs one file's step, turning a file system error into a typed error naming the path. */
async function step(path: string, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (error) {
    if (CheckpointError.isInstance(error)) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    const hint =
      code === "ENOSPC" || code === "EDQUOT"
        ? "the disk is full"
        : code === "EACCES" || code === "EPERM" || code === "EROFS"
          ? "permission denied"
          : (error as Error).message;
    throw new CheckpointError(
      "restore_failed",
      `Could not restore ${JSON.stringify(path)}: ${hint} (${code}).`,
      { path, cause: error },
    );
  }
}

/** Writes `bytes` to a temporary file beside `target` and renames it over `target`. */
async function replaceFile(
  target: string,
  mode: string,
  bytes: Buffer,
  currentMode: number | undefined,
): Promise<void> {
  const temp = join(dirname(target), `.arbor-restore-${randomBytes(6).toString("hex")}`);
  try {
    if (mode === "120000") {
      await symlink(bytes.toString("utf8"), temp);
    } else {
      await writeFile(temp, bytes, { flag: "wx", mode: 0o600 });
      // Keep the permissions the file has (read-only stays read-only); set the executable bit as the snapshot says.
      const permissions = (currentMode ?? 0o644) & 0o7777;
      const readable = permissions & 0o444;
      await chmod(temp, mode === "100755" ? permissions | (readable >> 2) : permissions & ~0o111);
    }
    await rename(temp, target);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}

/** Removes the folders that deleting `paths` left empty, deepest first, never the root. */
async function pruneEmptied(root: string, paths: readonly string[]): Promise<void> {
  const folders = new Set<string>();
  for (const path of paths) {
    for (let folder = dirname(path); folder !== "." && folder !== ""; folder = dirname(folder)) {
      folders.add(folder);
    }
  }
  const deepestFirst = [...folders].sort((a, b) => b.split("/").length - a.split("/").length);
  for (const folder of deepestFirst) await rmdir(join(root, folder)).catch(() => undefined);
}

/** Whether every file below a folder is one the plan deletes (so the folder would go). */
async function onlyDeletedBelow(root: string, folder: string, deleting: ReadonlySet<string>) {
  const entries = await readdir(join(root, folder), { withFileTypes: true });
  for (const entry of entries) {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory()) {
      if (!(await onlyDeletedBelow(root, path, deleting))) return false;
    } else if (!deleting.has(path)) return false;
  }
  return true;
}

/**
 * Checks that the folders of a path are real folders inside the workspace, making missing
 * ones when asked (or, in a dry run, noting that they would be made). A symlink or an
 * unknown file where a folder should be blocks the path.
 */
class FolderCheck {
  readonly #ok = new Set<string>();

  constructor(
    readonly root: string,
    readonly dryRun: boolean,
    readonly deleting: ReadonlySet<string>,
  ) {}

  async parentsAreFolders(path: string, create: boolean): Promise<boolean> {
    const parts = path.split("/").slice(0, -1);
    let folder = "";
    for (const part of parts) {
      folder = folder === "" ? part : `${folder}/${part}`;
      if (this.#ok.has(folder)) continue;
      const gone = this.dryRun && this.deleting.has(folder);
      const info = gone ? undefined : await lstatOrUndefined(join(this.root, folder));
      if (info === undefined) {
        if (!create) return true;
        if (!this.dryRun) await mkdir(join(this.root, folder));
      } else if (!info.isDirectory()) {
        return false;
      }
      this.#ok.add(folder);
    }
    return true;
  }
}
