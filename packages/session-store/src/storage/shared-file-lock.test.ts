import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { withSharedFileLock } from "./shared-file-lock.js";

const DIST = fileURLToPath(new URL("../../dist/index.js", import.meta.url));

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "arbor-shared-file-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** A process that adds its own name to a JSON list `times` times, each a read-modify-write. */
function appender(file: string, name: string, times: number): Promise<number | null> {
  const script = `
    import { readFile, rename, writeFile } from "node:fs/promises";
    import { withSharedFileLock } from ${JSON.stringify(DIST)};
    const [file, name, times] = process.argv.slice(1);
    for (let i = 0; i < Number(times); i++) {
      await withSharedFileLock(file, async () => {
        const list = JSON.parse(await readFile(file, "utf8"));
        list.push(name + i);
        const temp = file + "." + process.pid + ".tmp";
        await writeFile(temp, JSON.stringify(list));
        await rename(temp, file);
      });
    }
  `;
  const child = spawn(
    process.execPath,
    ["--input-type=module", "-e", script, file, name, String(times)],
    {
      stdio: ["ignore", "inherit", "inherit"],
    },
  );
  return new Promise((resolve) => child.on("exit", resolve));
}

describe("withSharedFileLock", () => {
  it("loses no read-modify-write of two processes changing one file at once", async () => {
    const file = join(dir, "list.json");
    await writeFile(file, "[]");
    const codes = await Promise.all([appender(file, "a", 60), appender(file, "b", 60)]);
    expect(codes).toEqual([0, 0]);
    const list: string[] = JSON.parse(await readFile(file, "utf8"));
    expect(list).toHaveLength(120);
    expect(new Set(list).size).toBe(120);
    expect((await readdir(dir)).sort()).toEqual(["list.json"]);
  }, 60_000);

  it("runs the changes of one process one at a time, and goes on after one fails", async () => {
    const file = join(dir, "count.json");
    await writeFile(file, "0");
    const bump = () =>
      withSharedFileLock(file, async () => {
        const n = Number(await readFile(file, "utf8"));
        await new Promise((resolve) => setImmediate(resolve));
        await writeFile(file, String(n + 1));
      });
    const failing = withSharedFileLock(file, async () => {
      throw new Error("refused");
    });
    await expect(failing).rejects.toThrow("refused");
    await Promise.all(Array.from({ length: 20 }, bump));
    expect(await readFile(file, "utf8")).toBe("20");
  });

  it("takes over the lock a dead process left behind", async () => {
    const file = join(dir, "left.json");
    // No process has this pid: pids stop at 2^22 on Linux.
    await writeFile(
      `${file}.lock`,
      JSON.stringify({ pid: 2 ** 22 + 7, host: hostname(), since: 0 }),
    );
    expect(await withSharedFileLock(file, async () => "done")).toBe("done");
  });
});
