import { copyFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importFixture } from "./import-test-util.js";
import { readOpencodeDatabase } from "./opencode-database.js";

/*
 * `generated/opencode-wal/` was written by SQLite itself (see the fixtures README): the
 * database holds the session and its first message; the write-ahead log beside it holds
 * four later transactions (an answer, its part, a question, its part), not yet
 * checkpointed, as while opencode runs.
 */
const PAGE = 4096;
const FRAME = 24 + PAGE;

let dir: string;
let wal: Buffer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "arbor-opencode-wal-"));
  wal = await readFile(importFixture("generated", "opencode-wal", "opencode.db-wal"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A copy of the fixture's database with `log` as its write-ahead log (none when undefined). */
async function database(name: string, log: Uint8Array | undefined): Promise<string> {
  const path = join(dir, `${name}.db`);
  await copyFile(importFixture("generated", "opencode-wal", "opencode.db"), path);
  if (log) await writeFile(`${path}-wal`, log);
  return path;
}

/** The text of each message of the session, in order. */
async function texts(path: string): Promise<string[]> {
  const [log] = await readOpencodeDatabase(path);
  return (log?.entries ?? []).flatMap((e) => {
    const content = (e as { message?: { content?: { text?: string }[] } }).message?.content;
    return content ? [content.map((b) => b.text ?? "").join("")] : [];
  });
}

describe("readOpencodeDatabase with opencode's write-ahead log", () => {
  it("reads the transactions committed to the log and not yet to the database", async () => {
    expect(await texts(await database("whole", wal))).toEqual([
      "checkpointed question",
      "answer only in the WAL",
      "second question, a later commit",
    ]);
    expect(await texts(await database("without", undefined))).toEqual(["checkpointed question"]);
  });

  it("leaves out what SQLite leaves out: a transaction cut short, a bad checksum, another log", async () => {
    const cut = (frames: number, extra = 0) => wal.subarray(0, 32 + frames * FRAME + extra);
    const corrupt = Buffer.from(wal);
    corrupt.writeUInt8(corrupt.readUInt8(32 + 4 * FRAME + 124) ^ 0xff, 32 + 4 * FRAME + 124);
    const stale = Buffer.from(wal);
    stale.writeUInt32BE(stale.readUInt32BE(16) + 1, 16); // another generation's salt
    const random = Buffer.alloc(wal.length).map((_, i) => (i * 7919) % 251);
    const pageSize = Buffer.from(wal);
    pageSize.writeUInt32BE(1024, 8);
    const cases: [string, Uint8Array, string[]][] = [
      [
        "two commits and half a frame",
        cut(7, FRAME / 2),
        ["checkpointed question", "answer only in the WAL"],
      ],
      [
        "the last commit's frame missing",
        cut(13),
        ["checkpointed question", "answer only in the WAL", ""],
      ],
      // The answer's row is in, its part (the second commit) is not: an answer of nothing.
      ["a bad checksum in the second commit", corrupt, ["checkpointed question"]],
      ["a header of another generation", stale, ["checkpointed question"]],
      ["not a log", random, ["checkpointed question"]],
      ["another page size", pageSize, ["checkpointed question"]],
      ["an empty log", new Uint8Array(0), ["checkpointed question"]],
      ["a header alone", cut(0), ["checkpointed question"]],
    ];
    for (const [name, log, expected] of cases) {
      expect({ name, texts: await texts(await database(name.replaceAll(" ", "-"), log)) }).toEqual({
        name,
        texts: expected,
      });
    }
  });

  it("counts the log within the size limit", async () => {
    const path = await database("limit", wal);
    const error = await readOpencodeDatabase(path, { maxDatabaseBytes: 100_000 }).catch(
      (e: unknown) => e,
    );
    expect((error as { code?: string }).code).toBe("import_too_large");
    expect((error as Error).message).toMatch(/write-ahead log/);
  });
});
