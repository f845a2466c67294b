import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { promisify } from "node:util";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import { describe, expect, it, vi } from "vitest";
import {
  createSession,
  listSessions,
  openSessionFile,
  SESSION_INDEX_FILE,
  type Session,
} from "../src/index.js";

const user = (text: string) => ({ role: "user", content: [{ type: "text", text }], timestamp: 1 });
const assistant = (text: string) => ({
  role: "assistant",
  content: [{ type: "text", text }],
  provider: "p",
  model: "m",
  timestamp: 2,
});

interface StoredRecord {
  size: number;
  mtimeMs: number;
  state: { id: string; name?: string; messageCount: number; firstUserMessage?: string };
}

async function readRecords(dir: string): Promise<Record<string, StoredRecord>> {
  return JSON.parse(await readFile(join(dir, SESSION_INDEX_FILE), "utf8")).files;
}

/** The session's record, checked to describe the file as it is now (so a listing trusts it). */
async function currentRecord(session: Session): Promise<StoredRecord> {
  const record = (await readRecords(join(session.location, "..")))[basename(session.location)];
  const stats = await stat(session.location);
  expect(record).toMatchObject({ size: stats.size, mtimeMs: stats.mtimeMs });
  return record as StoredRecord;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("a session keeps its listing index record in step", () => {
  it("after appends (debounced), at once on a title change, and at close", async () => {
    const dir = await mkdtemp(join(tmpdir(), "arbor-index-keep-"));
    const session = await createSession({ dir, cwd: "/p", listingIndexDelayMs: 20 });
    await session.appendMessage(user("  What   does the index hold? "));
    await session.appendMessage(assistant("Records."));
    // Written about 20 ms after the last append; a busy machine may take longer.
    await vi.waitFor(
      async () =>
        expect((await currentRecord(session)).state).toMatchObject({
          id: session.id,
          messageCount: 2,
          firstUserMessage: "What   does the index hold?",
        }),
      { timeout: 10_000, interval: 20 },
    );

    await session.setTitle("Index talk");
    expect((await currentRecord(session)).state.name).toBe("Index talk");

    await session.appendMessage(user("one more"));
    await session.close();
    expect((await currentRecord(session)).state.messageCount).toBe(3);

    // The listing uses the record as it is: it neither scans the file nor rewrites the index.
    const before = await stat(join(dir, SESSION_INDEX_FILE));
    const [info] = await listSessions(dir);
    expect(info).toMatchObject({ title: "Index talk", messageCount: 3, cwd: "/p" });
    const after = await stat(join(dir, SESSION_INDEX_FILE));
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
  });

  it("trusts a record whose size and mtime match, without reading the file", async () => {
    const dir = await mkdtemp(join(tmpdir(), "arbor-index-trust-"));
    const session = await createSession({ dir, cwd: "/p" });
    await session.appendMessage(user("what the index saw"));
    await session.setTitle("Indexed");
    await session.close();
    // A whole-second mtime, so it can be set again exactly; the listing records it.
    const mtime = new Date(Math.floor(Date.now() / 1000) * 1000 + 60_000);
    await utimes(session.location, mtime, mtime);
    expect((await listSessions(dir))[0]?.title).toBe("Indexed");
    const before = await stat(session.location);

    // Same byte count, same mtime, other content: only a listing that read the file would
    // notice, and reading it is what the index is there to avoid.
    const text = await readFile(session.location, "utf8");
    await writeFile(session.location, text.replace("Indexed", "Changed"));
    await utimes(session.location, mtime, mtime);
    expect((await stat(session.location)).mtimeMs).toBe(before.mtimeMs);
    expect((await listSessions(dir))[0]).toMatchObject({ title: "Indexed", messageCount: 1 });
    // Once the mtime moves, the file is read again.
    await utimes(session.location, mtime, new Date(mtime.getTime() + 1000));
    expect((await listSessions(dir))[0]?.title).toBe("Changed");
  });

  it("never describes bytes it has not seen: appends after the record are read on listing", async () => {
    const dir = await mkdtemp(join(tmpdir(), "arbor-index-stale-"));
    const session = await createSession({ dir, cwd: "/p", listingIndexDelayMs: 60_000 });
    await session.setTitle("named"); // writes the record now
    const recorded = await currentRecord(session);
    await session.appendMessage(user("after the record"));
    await session.appendMessage(assistant("still after"));
    expect((await readRecords(dir))[basename(session.location)]).toEqual(recorded);
    expect((await listSessions(dir))[0]).toMatchObject({
      messageCount: 2,
      firstUserMessage: "after the record",
    });
    await session.close();
  });

  it("is started by a session reopened in a listed directory, not in any other", async () => {
    const listed = await mkdtemp(join(tmpdir(), "arbor-index-listed-"));
    const created = await createSession({ dir: listed, cwd: "/p" });
    await created.close();
    const reopened = await openSessionFile(created.location, { listingIndexDelayMs: 10 });
    await reopened.appendMessage(user("back again"));
    await reopened.close();
    expect((await currentRecord(reopened)).state.messageCount).toBe(1);

    const elsewhere = await mkdtemp(join(tmpdir(), "arbor-index-elsewhere-"));
    const plain = await openSessionFile(join(elsewhere, "chat.jsonl"), { create: true });
    await plain.appendMessage(user("no index here"));
    await plain.close();
    await expect(stat(join(elsewhere, SESSION_INDEX_FILE))).rejects.toMatchObject({
      code: "ENOENT",
    });
  });

  it("drops the record of a deleted session and records a fork beside it", async () => {
    const dir = await mkdtemp(join(tmpdir(), "arbor-index-fork-"));
    const session = await createSession({ dir, cwd: "/p" });
    const first = await session.appendMessage(user("fork me"));
    const fork = await session.fork(first);
    await fork.close();
    expect((await currentRecord(fork)).state).toMatchObject({
      messageCount: 1,
      firstUserMessage: "fork me",
    });
    await session.delete();
    expect(Object.keys(await readRecords(dir))).toEqual([basename(fork.location)]);
    expect((await listSessions(dir)).map((s) => s.path)).toEqual([fork.location]);
  });

  it("lists a file pi appended to after Arbor recorded it", async () => {
    const dir = await mkdtemp(join(tmpdir(), "arbor-index-pi-"));
    const session = await createSession({ dir, cwd: "/p" });
    await session.appendMessage(user("started in Arbor"));
    await session.appendMessage(assistant("ok"));
    await session.close();
    await currentRecord(session);

    const pi = SessionManager.open(session.location);
    pi.appendMessage({ role: "user", content: [{ type: "text", text: "from pi" }], timestamp: 3 });
    pi.appendSessionInfo("named by pi");
    expect((await listSessions(dir))[0]).toMatchObject({
      title: "named by pi",
      messageCount: 3,
      firstUserMessage: "started in Arbor",
    });
  });
});

describe("concurrent writers of one index", () => {
  it("leave a valid index and a correct listing (records lost to a race are rebuilt)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "arbor-index-race-"));
    const writer = join(import.meta.dirname, "helpers", "index-writer.mjs");
    const run = promisify(execFile);
    const names = ["alpha", "beta", "gamma", "delta"];
    const listing = (async () => {
      // A listing racing the writers rewrites the index too.
      for (let i = 0; i < 10; i++) {
        await listSessions(dir);
        await sleep(5);
      }
    })();
    const outputs = await Promise.all(
      names.map((name, i) => run(process.execPath, [writer, dir, String(20 + i * 7), name])),
    );
    await listing;
    const paths = outputs.map((output) => output.stdout.trim());

    JSON.parse(await readFile(join(dir, SESSION_INDEX_FILE), "utf8")); // whole, never torn
    const list = await listSessions(dir);
    expect(list).toHaveLength(4);
    for (const [i, name] of names.entries()) {
      expect(list.find((info) => info.path === paths[i])).toMatchObject({
        title: name,
        messageCount: 20 + i * 7,
        firstUserMessage: `${name} message 0`,
      });
    }
    // Every record is now current, so the next listing changes nothing.
    const before = await stat(join(dir, SESSION_INDEX_FILE));
    await listSessions(dir);
    expect((await stat(join(dir, SESSION_INDEX_FILE))).ino).toBe(before.ino);
  });
});

describe("hostile and corrupt index files", () => {
  async function sessionDir(): Promise<{ dir: string; session: Session }> {
    const dir = await mkdtemp(join(tmpdir(), "arbor-index-hostile-"));
    const session = await createSession({ dir, cwd: "/p" });
    await session.appendMessage(user("the truth"));
    await session.close();
    return { dir, session };
  }

  it("rebuilds an index that is not JSON, not an index, or the wrong version", async () => {
    for (const junk of ["{broken", "[]", '{"version":2,"files":{}}', '{"version":1,"files":[]}']) {
      const { dir, session } = await sessionDir();
      await writeFile(join(dir, SESSION_INDEX_FILE), junk);
      expect((await listSessions(dir))[0]).toMatchObject({ id: session.id, messageCount: 1 });
      expect(Object.keys(await readRecords(dir))).toEqual([basename(session.location)]);
    }
  });

  it("never trusts a record whose size or mtime does not match the file", async () => {
    const { dir, session } = await sessionDir();
    const name = basename(session.location);
    const records = await readRecords(dir);
    const real = records[name] as StoredRecord;
    const lie = { ...real.state, messageCount: 999, name: "forged" };
    for (const forged of [
      { ...real, size: real.size + 1, state: lie },
      { ...real, mtimeMs: real.mtimeMs - 1000, state: lie },
    ]) {
      await writeFile(
        join(dir, SESSION_INDEX_FILE),
        JSON.stringify({ version: 1, files: { [name]: forged } }),
      );
      const [info] = await listSessions(dir);
      expect(info).toMatchObject({ messageCount: 1, name: undefined, title: "the truth" });
    }
  });

  it("treats odd keys as names and ignores records of files that are not there", async () => {
    const { dir, session } = await sessionDir();
    const real = (await readRecords(dir))[basename(session.location)] as StoredRecord;
    await writeFile(
      join(dir, SESSION_INDEX_FILE),
      `{"version":1,"files":{"__proto__":${JSON.stringify({ ...real, state: { ...real.state, name: "polluted" } })},"../../etc/passwd.jsonl":${JSON.stringify(real)}}}`,
    );
    const list = await listSessions(dir);
    expect(list.map((info) => [info.path, info.name])).toEqual([[session.location, undefined]]);
    expect(Object.prototype).not.toHaveProperty("state");
    expect(Object.keys(await readRecords(dir))).toEqual([basename(session.location)]);
  });

  it("lists and writes sessions when the index path is a directory", async () => {
    const dir = await mkdtemp(join(tmpdir(), "arbor-index-dir-"));
    await mkdir(join(dir, SESSION_INDEX_FILE));
    const session = await createSession({ dir, cwd: "/p", listingIndexDelayMs: 1 });
    await session.appendMessage(user("fine"));
    await session.setTitle("still fine");
    await session.close();
    expect((await listSessions(dir))[0]).toMatchObject({ title: "still fine", messageCount: 1 });
  });

  it("replaces a corrupt index with a valid one when a session writes its record", async () => {
    const dir = await mkdtemp(join(tmpdir(), "arbor-index-heal-"));
    await writeFile(join(dir, SESSION_INDEX_FILE), "\u0000\u0001 not json");
    const session = await createSession({ dir, cwd: "/p" });
    await session.appendMessage(user("heal"));
    await session.close();
    expect((await currentRecord(session)).state.messageCount).toBe(1);
  });
});
