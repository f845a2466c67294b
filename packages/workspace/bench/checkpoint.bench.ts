/**
 * What a checkpoint costs in a workspace of 10,000 files / 200 MB (generated in a temporary
 * folder): a checkpoint after a one-file change against the floor, `git add -A && git
 * write-tree` on the same tree with an index of its own, rounds interleaved in the same
 * run; a restore of a 100-file change; and the bytes each checkpoint adds to the store.
 * Targets: checkpoint < 50 ms, restore < 200 ms, storage close to the size of the change.
 * Run with `pnpm bench`; never part of the tests.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { type CheckpointStore, openCheckpointStore } from "../src/index.js";

const FILES = 10_000;
const FOLDERS = 100;
const FILE_BYTES = 20 * 1024; // 10,000 × 20 KiB ≈ 200 MB
const CHECKPOINT_ROUNDS = 21;
const RESTORE_ROUNDS = 9;
const run = promisify(execFile);

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
const fileOf = (index: number) => join(`d${index % FOLDERS}`, `f${index}.txt`);
/** Text-like content (base64), so git's compression works as it does on source files. */
const content = (bytes: number) =>
  randomBytes(Math.ceil((bytes * 3) / 4))
    .toString("base64")
    .slice(0, bytes);

async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += (await stat(join(entry.parentPath, entry.name))).size;
  }
  return total;
}

async function main(): Promise<void> {
  const base = await mkdtemp(join(tmpdir(), "arbor-checkpoint-bench-"));
  try {
    const workspace = join(base, "workspace");
    for (let folder = 0; folder < FOLDERS; folder++)
      await mkdir(join(workspace, `d${folder}`), { recursive: true });
    for (let index = 0; index < FILES; index += 200) {
      await Promise.all(
        Array.from({ length: 200 }, (_, offset) =>
          writeFile(join(workspace, fileOf(index + offset)), content(FILE_BYTES)),
        ),
      );
    }
    const workspaceBytes = await folderBytes(workspace);

    // The floor: plain git with its own git directory and index over the same tree.
    const floorEnv = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: join(base, "floor-home"),
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_DIR: join(base, "floor.git"),
      GIT_WORK_TREE: workspace,
      GIT_INDEX_FILE: join(base, "floor.index"),
    };
    const git = (...args: string[]) =>
      run("git", args, { env: floorEnv, cwd: workspace, maxBuffer: 1 << 26 });
    await git("init", "-q", join(base, "floor.git"));
    let started = performance.now();
    await git("add", "-A");
    await git("write-tree");
    const floorFirstMs = performance.now() - started;

    const opened = await openCheckpointStore({
      workspace,
      home: join(base, "home"),
      maxFileBytes: 10 * 1024 * 1024,
    });
    if (!opened.available) throw new Error(opened.reason);
    const store: CheckpointStore = opened;
    started = performance.now();
    const first = await store.snapshot();
    const firstMs = performance.now() - started;
    await store.snapshot();

    const ours: number[] = [];
    const floor: number[] = [];
    const added: number[] = [];
    for (let round = 0; round < CHECKPOINT_ROUNDS; round++) {
      await writeFile(join(workspace, fileOf(round * 37)), content(FILE_BYTES));
      // Alternate who goes first, so neither always meets a warm cache.
      const measureOurs = async () => {
        const before = await folderBytes(join(store.storeDir, "git", "objects"));
        const t = performance.now();
        const result = await store.snapshot();
        ours.push(performance.now() - t);
        if (result.changed.length !== 1)
          throw new Error(`expected one change, got ${result.changed.length}`);
        added.push((await folderBytes(join(store.storeDir, "git", "objects"))) - before);
      };
      const measureFloor = async () => {
        const t = performance.now();
        await git("add", "-A");
        await git("write-tree");
        floor.push(performance.now() - t);
      };
      if (round % 2 === 0) {
        await measureOurs();
        await measureFloor();
      } else {
        await measureFloor();
        await measureOurs();
      }
    }

    const restores: number[] = [];
    const restoreAdded: number[] = [];
    let restoreSnapshotMs = 0;
    for (let round = 0; round < RESTORE_ROUNDS; round++) {
      const before = await store.snapshot();
      for (let file = 0; file < 100; file++) {
        await writeFile(join(workspace, fileOf(round * 1000 + file * 7)), content(FILE_BYTES));
      }
      const objectsBefore = await folderBytes(join(store.storeDir, "git", "objects"));
      const t0 = performance.now();
      await store.snapshot();
      restoreSnapshotMs = performance.now() - t0;
      restoreAdded.push(
        (await folderBytes(join(store.storeDir, "git", "objects"))) - objectsBefore,
      );
      const t = performance.now();
      const result = await store.restore(before.id);
      restores.push(performance.now() - t);
      if (result.written.length !== 100)
        throw new Error(`expected 100 files written, got ${result.written.length}`);
    }

    const storeBytes = await folderBytes(join(store.storeDir, "git"));
    const ms = (value: number) => `${value.toFixed(1)} ms`;
    const kib = (value: number) => `${(value / 1024).toFixed(1)} KiB`;
    const rows: Array<[string, string, string, string]> = [
      [
        "checkpoint after a one-file change (median)",
        ms(median(ours)),
        ms(median(floor)),
        `${(median(ours) / median(floor)).toFixed(2)}× floor · target 50 ms`,
      ],
      [
        "first checkpoint of the whole workspace",
        ms(firstMs),
        ms(floorFirstMs),
        `${(firstMs / floorFirstMs).toFixed(2)}× floor`,
      ],
      [
        "restore of a 100-file change (median)",
        ms(median(restores)),
        "",
        "target 200 ms (includes its undo checkpoint)",
      ],
      ["checkpoint of a 100-file change (last)", ms(restoreSnapshotMs), "", ""],
      [
        "store growth per one-file checkpoint (median)",
        kib(median(added)),
        kib(FILE_BYTES),
        "changed bytes: one 20 KiB file",
      ],
      [
        "store growth per 100-file checkpoint (median)",
        kib(median(restoreAdded)),
        kib(100 * FILE_BYTES),
        "changed bytes: 100 files",
      ],
    ];
    console.log(
      `workspace: ${first.changed.length} files, ${(workspaceBytes / 1e6).toFixed(0)} MB; store after the run: ${(storeBytes / 1e6).toFixed(0)} MB`,
    );
    console.log(
      `rounds: ${CHECKPOINT_ROUNDS} checkpoints, ${RESTORE_ROUNDS} restores; peer (floor) = git add -A && git write-tree`,
    );
    console.table(rows.map(([what, arbor, peer, note]) => ({ what, arbor, floor: peer, note })));
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}

await main();
