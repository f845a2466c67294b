import { copyFile, mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { openSessionFile } from "../src/index.js";
import { piFixturesDir } from "./pi-fixtures.js";

/** What the file backend did to the file system, in order. */
const events = vi.hoisted(() => [] as string[]);

vi.mock("node:fs/promises", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs/promises")>();
  const name = (path: unknown) => String(path).split("/").pop() ?? "";
  const open: typeof actual.open = async (path, flags, mode) => {
    const handle = await actual.open(path, flags, mode);
    const sync = handle.sync.bind(handle);
    handle.sync = async () => {
      events.push(`sync ${name(path)}`);
      return sync();
    };
    return handle;
  };
  const rename: typeof actual.rename = async (from, to) => {
    events.push(`rename ${name(from)} -> ${name(to)}`);
    return actual.rename(from, to);
  };
  const writeFile: typeof actual.writeFile = async (path, data, options) => {
    const flush = typeof options === "object" && options !== null && "flush" in options;
    events.push(`write ${name(path)}${flush && options.flush ? " (flushed)" : ""}`);
    return actual.writeFile(path, data, options);
  };
  return { ...actual, default: { ...actual, open, rename, writeFile }, open, rename, writeFile };
});

describe("migrating a file", () => {
  it("writes a temporary file, fsyncs it, keeps the original as a backup, then renames", async () => {
    const dir = await mkdtemp(join(tmpdir(), "arbor-atomic-"));
    const path = join(dir, "old.jsonl");
    await copyFile(join(piFixturesDir(), "v1-before-compaction.jsonl"), path);
    const original = await readFile(path);
    events.length = 0;
    const session = await openSessionFile(path);
    await session.close();

    const steps = events.filter((event) => !event.includes(".lock"));
    const temp = steps[0]?.match(/^sync (old\.jsonl\.tmp-\S+)$/)?.[1];
    expect(temp, steps.join("\n")).toBeDefined();
    expect(steps.slice(0, 4)).toEqual([
      `sync ${temp}`,
      "write old.jsonl.v1.bak (flushed)",
      `rename ${temp} -> old.jsonl`,
      `sync ${basename(dir)}`,
    ]);
    expect((await readFile(`${path}.v1.bak`)).equals(original)).toBe(true);
  });
});
