import { createHash, randomBytes } from "node:crypto";
import {
  lstat,
  mkdir,
  readFile,
  realpath,
  rename,
  stat,
  unlink,
  writeFile,
} from "node:fs/promises";
import { dirname, isAbsolute, join, relative, sep } from "node:path";
import { type CapturedTree, captureTree } from "./capture-tree.js";
import { CheckpointError } from "./checkpoint-error.js";
import {
  type FileChange,
  type RestoreResult,
  type SnapshotResult,
  snapshotIdSchema,
} from "./checkpoint-schema.js";
import { writeCommitObject } from "./commit-object.js";
import { applyRestore, type RestorePlan } from "./restore-files.js";
import { nulFields, ShadowGit } from "./shadow-git.js";
import { fileChanges, restorePlan } from "./tree-diff.js";

/** Options of {@link openCheckpointStore}. */
export interface CheckpointStoreOptions {
  /** The folder whose files are checkpointed. */
  workspace: string;
  /** The folder the stores live in (one store per workspace below it), e.g. Arbor's home. */
  home: string;
  /** Files larger than this many bytes are left out of snapshots and named. Default 10 MiB. */
  maxFileBytes?: number;
  /** How git is found: the program (default `git`) and the `PATH` to look it up on. */
  git?: { binary?: string; path?: string };
}

/** A workspace's checkpoints: snapshots of its files, their differences, and restores. */
export interface CheckpointStore {
  readonly available: true;
  /** The workspace's real path. */
  readonly workspace: string;
  /** The store's own folder (its git directory, index and empty home). */
  readonly storeDir: string;
  /**
   * Captures the workspace as it is now (what `.gitignore` ignores left out, files over the
   * size limit left out and named) and returns the snapshot's id with the paths changed
   * since the previous snapshot of this store. An unchanged workspace gives the previous id.
   */
  snapshot(): Promise<SnapshotResult>;
  /** How the files differ from one snapshot to another. */
  diff(fromId: string, toId: string): Promise<FileChange[]>;
  /**
   * Brings the workspace's files to a snapshot: snapshots the current state first (its id
   * is `undoId`, restoring it undoes this), then writes only the files that differ and
   * deletes files the target lacks that a snapshot knows. Ignored, too-large and unknown
   * files are never deleted or overwritten; they are reported as `kept`. With `dryRun`
   * nothing is changed or recorded and the result says what would be.
   *
   * @throws CheckpointError `unknown_snapshot`, `restore_failed` (the workspace is put back
   * as it was before the restore, and the message says so) or `busy`
   */
  restore(id: string, options?: { dryRun?: boolean }): Promise<RestoreResult>;
  /**
   * Writes a snapshot's files into another folder (a fork's work tree): every file the
   * snapshot holds is written (never through a symlink), and files of `removable` the
   * snapshot lacks are deleted. The workspace and its store's index are not touched.
   * @returns the paths written and deleted
   * @throws CheckpointError `unknown_snapshot`, `git_failed`
   */
  materialize(
    id: string,
    target: string,
    options?: { removable?: readonly string[] },
  ): Promise<{ written: string[]; deleted: string[] }>;
}

/** What {@link openCheckpointStore} returns when checkpoints cannot work here. */
export interface UnavailableCheckpointStore {
  readonly available: false;
  /** One sentence for the user: why checkpoints are off and how to turn them on. */
  readonly reason: string;
  readonly error: CheckpointError;
}

const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024;
const LATEST = "refs/arbor/latest";
const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

/**
 * Opens (creating on first use) the checkpoint store of a workspace: a git object store of
 * its own under `home`, with its own index, that never reads or touches the workspace's
 * `.git`, the user's git config, identity, hooks or stash. Works the same whether the
 * workspace is a git repository or not. When git cannot be run the result is
 * `{ available: false, reason }` and nothing else is affected.
 *
 * @example
 * ```ts
 * const store = await openCheckpointStore({ workspace: process.cwd(), home: "/home/me/.arbor/checkpoints" });
 * if (store.available) {
 *   const { id, changed } = await store.snapshot();
 *   await store.restore(id, { dryRun: true });
 * }
 * ```
 * @throws CheckpointError `workspace_missing` when the workspace is not a folder
 */
export async function openCheckpointStore(
  options: CheckpointStoreOptions,
): Promise<CheckpointStore | UnavailableCheckpointStore> {
  const workspace = await realpath(options.workspace).catch(() => undefined);
  if (workspace === undefined || !(await stat(workspace)).isDirectory()) {
    throw new CheckpointError(
      "workspace_missing",
      `The workspace ${JSON.stringify(options.workspace)} is not a folder; checkpoints need an existing folder.`,
    );
  }
  const key = createHash("sha256").update(workspace).digest("hex").slice(0, 24);
  const storeDir = join(options.home, key);
  const git = new ShadowGit({
    gitBinary: options.git?.binary ?? "git",
    path: options.git?.path ?? "/usr/local/bin:/usr/bin:/bin",
    gitDir: join(storeDir, "git"),
    indexFile: join(storeDir, "index"),
    workTree: workspace,
    emptyHome: join(storeDir, "empty-home"),
    hooksDir: join(storeDir, "no-hooks"),
  });
  try {
    await initStore(git, storeDir, workspace);
  } catch (error) {
    if (CheckpointError.isInstance(error) && error.code === "git_unavailable") {
      return { available: false, reason: error.message, error };
    }
    throw error;
  }
  return new ShadowCheckpointStore(
    git,
    workspace,
    storeDir,
    options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
  );
}

/** Creates the store's folders and git directory once. */
async function initStore(git: ShadowGit, storeDir: string, workspace: string): Promise<void> {
  await mkdir(join(storeDir, "empty-home"), { recursive: true });
  await mkdir(join(storeDir, "no-hooks"), { recursive: true });
  const exists = await lstat(join(storeDir, "git", "HEAD")).then(
    () => true,
    () => false,
  );
  if (exists) {
    await git.ok(["--version"]);
    return;
  }
  // --template= copies no sample hooks; the git directory holds objects and one ref.
  await git.ok(["init", "--quiet", "--template=", join(storeDir, "git")]);
  await mkdir(join(storeDir, "git", "info"), { recursive: true });
  // Above every .gitattributes of the workspace: bytes are stored as they are, no filter
  // (LFS or other) and no line-ending conversion ever runs.
  await writeFile(
    join(storeDir, "git", "info", "attributes"),
    "* -text !eol !filter !ident !working-tree-encoding\n",
  );
  // A store kept inside its own workspace (Arbor's home under the project) is never snapshotted.
  const inside = relative(workspace, await realpath(storeDir));
  if (inside !== "" && !inside.startsWith("..") && !isAbsolute(inside)) {
    const literal = inside
      .split(sep)
      .join("/")
      .replace(/[\\*?[\]!#\s]/g, "\\$&");
    await writeFile(join(storeDir, "git", "info", "exclude"), `/${literal}/\n`);
  }
  await writeFile(join(storeDir, "workspace"), `${workspace}\n`);
}

/** A checkpoint store over a shadow git directory. */
class ShadowCheckpointStore implements CheckpointStore {
  readonly available = true;
  #known: { id: string; tree: string } | undefined;
  /** One operation at a time: they share the index. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly git: ShadowGit,
    readonly workspace: string,
    readonly storeDir: string,
    readonly maxFileBytes: number,
  ) {}

  snapshot(): Promise<SnapshotResult> {
    return this.#serial(() => this.#snapshot());
  }

  diff(fromId: string, toId: string): Promise<FileChange[]> {
    return this.#serial(async () => {
      const raw = await this.git.ok([
        "diff-tree",
        "-r",
        "-z",
        "--raw",
        "--no-renames",
        await this.#treeOf(fromId),
        await this.#treeOf(toId),
      ]);
      return fileChanges(raw);
    });
  }

  restore(id: string, options: { dryRun?: boolean } = {}): Promise<RestoreResult> {
    return this.#serial(() => this.#restore(id, options.dryRun ?? false));
  }

  materialize(
    id: string,
    target: string,
    options: { removable?: readonly string[] } = {},
  ): Promise<{ written: string[]; deleted: string[] }> {
    return this.#serial(async () => {
      const tree = await this.#treeOf(id);
      const index = join(this.storeDir, `materialize-${randomBytes(6).toString("hex")}.index`);
      const git = this.git.withWorkTree(await realpath(target), index);
      try {
        await git.ok(["read-tree", tree]);
        // checkout-index refuses to write below a symlink, as git does in a checkout.
        await git.ok(["checkout-index", "-a", "-f"]);
        const written = nulFields(await git.ok(["ls-files", "-z"]));
        const held = new Set(written);
        const deleted: string[] = [];
        const root = await realpath(target);
        for (const path of options.removable ?? []) {
          if (held.has(path)) continue;
          const full = join(root, path);
          // Never through a symlink: the file's folder must be the real folder it names.
          const folder = await realpath(dirname(full)).catch(() => undefined);
          if (folder !== dirname(full)) continue;
          const info = await lstat(full).catch(() => undefined);
          if (info === undefined || info.isDirectory()) continue;
          await unlink(full);
          deleted.push(path);
        }
        return { written, deleted };
      } finally {
        await unlink(index).catch(() => undefined);
      }
    });
  }

  #serial<T>(run: () => Promise<T>): Promise<T> {
    const turn = this.#queue.then(run);
    this.#queue = turn.catch(() => undefined);
    return turn;
  }

  async #snapshot(): Promise<SnapshotResult> {
    const latest = await this.#latest();
    const { tree, skipped } = await this.#capture();
    if (latest !== undefined && latest.tree === tree) {
      return { id: latest.id, previousId: latest.id, changed: [], skipped };
    }
    const changed = nulFields(
      await this.git.ok([
        "diff-tree",
        "-r",
        "-z",
        "--name-only",
        "--no-renames",
        latest?.tree ?? EMPTY_TREE,
        tree,
      ]),
    );
    const id = await writeCommitObject(join(this.storeDir, "git"), {
      tree,
      parent: latest?.id,
      message: JSON.stringify({ skipped }),
      time: Math.floor(Date.now() / 1000),
    });
    await this.#setLatest(id, tree);
    return { id, ...(latest ? { previousId: latest.id } : {}), changed, skipped };
  }

  /** The tree of the workspace as it is now, written to the store without a commit. */
  #capture(): Promise<CapturedTree> {
    return captureTree(this.git, this.workspace, this.maxFileBytes);
  }

  async #restore(id: string, dryRun: boolean): Promise<RestoreResult> {
    if (!snapshotIdSchema.safeParse(id).success) throw unknownSnapshot(id);
    let undoId: string | undefined;
    let currentTree: string;
    if (dryRun) {
      currentTree = (await this.#capture()).tree;
    } else {
      undoId = (await this.#snapshot()).id;
      currentTree = this.#known?.id === undoId ? this.#known.tree : await this.#treeOf(undoId);
    }
    const plan = await this.#plan(currentTree, id).catch((error: unknown) => {
      throw CheckpointError.isInstance(error) && error.code === "git_failed"
        ? unknownSnapshot(id)
        : error;
    });
    const readBlobs = (shas: readonly string[]) => this.#readBlobs(shas);
    try {
      const applied = await applyRestore(this.workspace, plan, { dryRun, readBlobs });
      return { targetId: id, dryRun, ...(undoId ? { undoId } : {}), ...applied };
    } catch (error) {
      if (undoId === undefined || !CheckpointError.isInstance(error)) throw error;
      // Put back what was there: the files written so far go back to the undo snapshot.
      const back = await this.#plan((await this.#capture()).tree, currentTree);
      const rolledBack = await applyRestore(this.workspace, back, {
        dryRun: false,
        readBlobs,
      }).then(
        () => true,
        () => false,
      );
      throw new CheckpointError(
        error.code,
        `${error.message} ${
          rolledBack
            ? "The restore was stopped and the workspace put back as it was."
            : `The restore was stopped; putting the workspace back failed too, and its state before the restore is snapshot ${undoId}.`
        }`,
        { ...(error.path ? { path: error.path } : {}), cause: error },
      );
    }
  }

  /** The deletes and writes that turn one tree (or snapshot) into another; submodule links are left alone. */
  async #plan(fromTree: string, toTree: string): Promise<RestorePlan> {
    const raw = await this.git.ok([
      "diff-tree",
      "-r",
      "-z",
      "--raw",
      "--no-renames",
      fromTree,
      toTree,
    ]);
    return restorePlan(raw);
  }

  /** The contents of many blobs, read through one `git cat-file --batch`. */
  async #readBlobs(shas: readonly string[]): Promise<Map<string, Buffer>> {
    const blobs = new Map<string, Buffer>();
    if (shas.length === 0) return blobs;
    const out = await this.git.ok(["cat-file", "--batch"], `${shas.join("\n")}\n`);
    let at = 0;
    for (const sha of shas) {
      const end = out.indexOf(10, at);
      const header = out.subarray(at, end).toString("latin1").split(" ");
      const size = Number(header[2]);
      if (header[1] !== "blob" || !Number.isInteger(size)) {
        throw new CheckpointError("git_failed", `The checkpoint store has no blob ${sha}.`);
      }
      blobs.set(sha, out.subarray(end + 1, end + 1 + size));
      at = end + 1 + size + 1;
    }
    return blobs;
  }

  /**
   * The latest snapshot of this store and its tree, if any. The ref is read as a file and
   * its tree remembered, so a checkpoint spends no git run on it; another process that
   * moved the ref is noticed and asked about.
   */
  async #latest(): Promise<{ id: string; tree: string } | undefined> {
    const id = (await readFile(this.#latestRef, "utf8").catch(() => "")).trim();
    if (id === "") {
      const result = await this.git.run(["rev-parse", LATEST, `${LATEST}^{tree}`]);
      if (result.exitCode !== 0) return undefined;
      const [packedId, tree] = result.stdout.toString("utf8").trim().split("\n");
      return packedId && tree ? { id: packedId, tree } : undefined;
    }
    if (this.#known?.id === id) return this.#known;
    this.#known = { id, tree: await this.#treeOf(id) };
    return this.#known;
  }

  /** Moves the store's ref to a new snapshot: written to a temporary file and renamed. */
  async #setLatest(id: string, tree: string): Promise<void> {
    await mkdir(dirname(this.#latestRef), { recursive: true });
    const temp = `${this.#latestRef}.${randomBytes(6).toString("hex")}.tmp`;
    await writeFile(temp, `${id}\n`);
    await rename(temp, this.#latestRef);
    this.#known = { id, tree };
  }

  get #latestRef(): string {
    return join(this.storeDir, "git", LATEST);
  }

  /** The tree of a snapshot id, checked to be a snapshot of this store. */
  async #treeOf(id: string): Promise<string> {
    const unknown = unknownSnapshot(id);
    if (!snapshotIdSchema.safeParse(id).success) throw unknown;
    const result = await this.git.run(["rev-parse", "-q", "--verify", `${id}^{commit}^{tree}`]);
    if (result.exitCode !== 0) throw unknown;
    return result.stdout.toString("utf8").trim();
  }
}

const unknownSnapshot = (id: string) =>
  new CheckpointError(
    "unknown_snapshot",
    `${JSON.stringify(id)} is not a snapshot of this workspace's checkpoint store.`,
  );
