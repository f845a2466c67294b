import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  chmod,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  rm,
  stat,
  symlink,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hashWorkspace } from "../test/index.js";
import { CheckpointError } from "./checkpoint-error.js";
import { type CheckpointStore, openCheckpointStore } from "./checkpoint-store.js";

let base: string;
let workspace: string;
let outside: string;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "arbor-checkpoints-hostile-"));
  workspace = join(base, "project");
  outside = join(base, "outside");
  await mkdir(workspace);
  await mkdir(outside);
  await writeFile(join(outside, "secret.txt"), "outside\n");
});
afterEach(async () => {
  await chmod(join(workspace, "locked"), 0o755).catch(() => undefined);
  try {
    execFileSync("chattr", ["-i", join(workspace, "locked")], { stdio: "ignore" });
  } catch {}
  await rm(base, { recursive: true, force: true });
});

async function open(maxFileBytes = 1024 * 1024): Promise<CheckpointStore> {
  const store = await openCheckpointStore({ workspace, home: join(base, "home"), maxFileBytes });
  if (!store.available) throw new Error(store.reason);
  return store;
}

describe("hostile workspaces", () => {
  it("never follows a symlink to an outside folder", async () => {
    const store = await open();
    await mkdir(join(workspace, "out"));
    await writeFile(join(workspace, "out", "secret.txt"), "inside\n");
    const folder = await store.snapshot();
    await rm(join(workspace, "out"), { recursive: true });
    await symlink(outside, join(workspace, "out"));
    const linked = await store.snapshot();
    expect(linked.changed).toEqual(["out", "out/secret.txt"]);
    expect(await store.restore(folder.id)).toMatchObject({
      written: ["out/secret.txt"],
      deleted: ["out"],
    });
    expect((await lstat(join(workspace, "out"))).isDirectory()).toBe(true);
    expect(await store.restore(linked.id)).toMatchObject({
      written: ["out"],
      deleted: ["out/secret.txt"],
    });
    expect(await readlink(join(workspace, "out"))).toBe(outside);
    expect(await readdir(outside)).toEqual(["secret.txt"]);
    expect(await readFile(join(outside, "secret.txt"), "utf8")).toBe("outside\n");

    // An ignored symlink where the target has a folder is kept, and nothing goes through it.
    await writeFile(join(workspace, ".gitignore"), "out\n");
    await store.snapshot();
    const result = await store.restore(folder.id);
    expect(result.kept).toEqual([{ path: "out/secret.txt", reason: "blocked_parent" }]);
    expect(await readdir(outside)).toEqual(["secret.txt"]);
    expect(await readFile(join(outside, "secret.txt"), "utf8")).toBe("outside\n");
  });

  it("restores a file replaced by a folder between snapshot and restore, and can undo it", async () => {
    const store = await open();
    await writeFile(join(workspace, "a"), "a file\n");
    const file = await store.snapshot();
    await rm(join(workspace, "a"));
    await mkdir(join(workspace, "a"));
    await writeFile(join(workspace, "a", "x.txt"), "in the folder\n");
    const folder = await hashWorkspace(workspace);
    const result = await store.restore(file.id);
    expect(result).toMatchObject({ written: ["a"], deleted: ["a/x.txt"], kept: [] });
    expect(await readFile(join(workspace, "a"), "utf8")).toBe("a file\n");
    await store.restore(result.undoId ?? "");
    expect(await hashWorkspace(workspace)).toBe(folder);
  });

  it("keeps a folder holding ignored files where the target has a file", async () => {
    const store = await open();
    await writeFile(join(workspace, ".gitignore"), "*.log\n");
    await writeFile(join(workspace, "a"), "a file\n");
    const file = await store.snapshot();
    await rm(join(workspace, "a"));
    await mkdir(join(workspace, "a"));
    await writeFile(join(workspace, "a", "x.txt"), "known\n");
    await writeFile(join(workspace, "a", "debug.log"), "ignored\n");
    const result = await store.restore(file.id);
    expect(result).toMatchObject({
      deleted: ["a/x.txt"],
      kept: [{ path: "a", reason: "folder_not_empty" }],
    });
    expect(await readFile(join(workspace, "a", "debug.log"), "utf8")).toBe("ignored\n");
    await store.restore(result.undoId ?? "");
    expect(await readFile(join(workspace, "a", "x.txt"), "utf8")).toBe("known\n");
  });

  it("restores a read-only file and keeps it read-only", async () => {
    const store = await open();
    await writeFile(join(workspace, "ro.txt"), "first\n", { mode: 0o444 });
    const first = await store.snapshot();
    await chmod(join(workspace, "ro.txt"), 0o644);
    await writeFile(join(workspace, "ro.txt"), "second\n");
    await chmod(join(workspace, "ro.txt"), 0o444);
    await store.snapshot();
    expect(await store.restore(first.id)).toMatchObject({ written: ["ro.txt"] });
    expect(await readFile(join(workspace, "ro.txt"), "utf8")).toBe("first\n");
    expect((await stat(join(workspace, "ro.txt"))).mode & 0o777).toBe(0o444);
  });

  it("stops with a typed error when a file cannot be written, and puts back what it wrote", async () => {
    const store = await open();
    await mkdir(join(workspace, "locked"));
    await writeFile(join(workspace, "a.txt"), "1\n");
    await writeFile(join(workspace, "locked", "b.txt"), "1\n");
    const first = await store.snapshot();
    await writeFile(join(workspace, "a.txt"), "2\n");
    await writeFile(join(workspace, "locked", "b.txt"), "2\n");
    await store.snapshot();
    const before = await hashWorkspace(workspace);
    // root ignores permissions; an immutable folder stops it all the same.
    if (process.getuid?.() === 0) execFileSync("chattr", ["+i", join(workspace, "locked")]);
    else await chmod(join(workspace, "locked"), 0o555);
    const error = await store.restore(first.id).catch((caught: unknown) => caught);
    expect(CheckpointError.isInstance(error)).toBe(true);
    if (!CheckpointError.isInstance(error)) return;
    expect(error.code).toBe("restore_failed");
    expect(error.path).toBe("locked/b.txt");
    expect(error.message).toMatch(
      /^Could not restore "locked\/b\.txt": permission denied \(E(ACCES|PERM)\)\. The restore was stopped and the workspace put back as it was\.$/,
    );
    expect(await hashWorkspace(workspace)).toBe(before);
    expect(
      (await readdir(join(workspace, "locked"))).filter((name) => name.startsWith(".arbor")),
    ).toEqual([]);
  });

  it("restores a binary file byte for byte", async () => {
    const store = await open();
    const bytes = Buffer.concat([Buffer.from([0, 255, 0, 13, 10, 0]), randomBytes(256 * 1024)]);
    await writeFile(join(workspace, "blob.bin"), bytes);
    const first = await store.snapshot();
    await writeFile(join(workspace, "blob.bin"), randomBytes(1000));
    await store.snapshot();
    await store.restore(first.id);
    expect((await readFile(join(workspace, "blob.bin"))).equals(bytes)).toBe(true);
  });

  it("restores a file whose name holds a newline, and one with CRLF lines under a text attribute", async () => {
    const store = await open();
    const name = "line\nbreak.txt";
    await writeFile(join(workspace, name), "one\n");
    await writeFile(join(workspace, ".gitattributes"), "* text eol=lf\n");
    await writeFile(join(workspace, "crlf.txt"), "a\r\nb\r\n");
    const first = await store.snapshot();
    expect(first.changed).toEqual([".gitattributes", "crlf.txt", name]);
    await writeFile(join(workspace, name), "two\n");
    await writeFile(join(workspace, "crlf.txt"), "changed\n");
    await store.snapshot();
    expect(await store.restore(first.id)).toMatchObject({ written: ["crlf.txt", name] });
    expect(await readFile(join(workspace, name), "utf8")).toBe("one\n");
    expect(await readFile(join(workspace, "crlf.txt"), "utf8")).toBe("a\r\nb\r\n");
  });

  it("skips files over the size limit, names them, and never deletes or overwrites them", async () => {
    const store = await open(1000);
    await writeFile(join(workspace, "data.bin"), "small\n");
    const small = await store.snapshot();
    await writeFile(join(workspace, "data.bin"), Buffer.alloc(5000, 1));
    await writeFile(join(workspace, "huge.bin"), Buffer.alloc(4000, 2));
    const large = await store.snapshot();
    expect(large.skipped).toEqual([
      { path: "data.bin", reason: "too_large", bytes: 5000 },
      { path: "huge.bin", reason: "too_large", bytes: 4000 },
    ]);
    expect(large.changed).toEqual(["data.bin"]);
    const result = await store.restore(small.id);
    expect(result).toMatchObject({
      written: [],
      deleted: [],
      kept: [{ path: "data.bin", reason: "unknown_file" }],
    });
    expect((await stat(join(workspace, "data.bin"))).size).toBe(5000);
    expect((await stat(join(workspace, "huge.bin"))).size).toBe(4000);
  });

  it("snapshots and restores a workspace of 10,000 files in bounded time", {
    timeout: 120_000,
  }, async () => {
    for (let folder = 0; folder < 100; folder++) {
      await mkdir(join(workspace, `d${folder}`));
      await Promise.all(
        Array.from({ length: 100 }, (_, file) =>
          writeFile(join(workspace, `d${folder}`, `f${file}.txt`), `${folder}/${file}\n`),
        ),
      );
    }
    const store = await open();
    const first = await store.snapshot();
    expect(first.changed).toHaveLength(10_000);
    await store.snapshot(); // the index now knows every file's stat
    await writeFile(join(workspace, "d5", "f5.txt"), "changed\n");
    let started = performance.now();
    const second = await store.snapshot();
    // Targets: a checkpoint under 50 ms, a restore under 200 ms; asserted at ten times that.
    expect(performance.now() - started).toBeLessThan(500);
    expect(second.changed).toEqual(["d5/f5.txt"]);
    for (let file = 0; file < 100; file++)
      await writeFile(join(workspace, "d7", `f${file}.txt`), "x\n");
    await store.snapshot();
    started = performance.now();
    const result = await store.restore(second.id);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(result.written).toHaveLength(100);
    expect(await readFile(join(workspace, "d7", "f9.txt"), "utf8")).toBe("7/9\n");
  });
});
