import { execFileSync } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readFile, symlink, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  createSession,
  defaultSessionDir,
  deleteSession,
  listSessions,
  openSessionFile,
  SESSION_INDEX_FILE,
  SessionLockedError,
} from "../src/index.js";
import { piFixturesDir } from "./pi-fixtures.js";

const user = (text: string) => ({ role: "user", content: [{ type: "text", text }], timestamp: 1 });

describe("listSessions", () => {
  it("lists Arbor and pi sessions newest first with their facts", async () => {
    const dir = await mkdtemp(join(tmpdir(), "arbor-list-"));
    const session = await createSession({ dir, cwd: "/proj" });
    await session.appendMessage(user("  Fix   the flaky login test "));
    await session.appendMessage({
      role: "assistant",
      content: [],
      provider: "p",
      model: "m",
      timestamp: 2,
    });
    await session.close();
    await copyFile(join(piFixturesDir(), "s1-005.jsonl"), join(dir, "pi.jsonl"));
    await utimes(join(dir, "pi.jsonl"), new Date(0), new Date(1000));

    const list = await listSessions(dir);
    // pi's rule: the pi session's messages are newer than this one's (timestamps 1 and 2).
    expect(list.map((s) => s.path)).toEqual([join(dir, "pi.jsonl"), session.location]);
    expect(list[1]?.modified.getTime()).toBe(2);
    list.reverse();
    expect(list[0]).toMatchObject({
      id: session.id,
      cwd: "/proj",
      title: "Fix the flaky login test",
      messageCount: 2,
      firstUserMessage: "Fix   the flaky login test",
    });
    const pi = await openSessionFile(join(dir, "pi.jsonl"), { readOnly: true });
    expect(list[1]).toMatchObject({
      id: pi.getHeader().id,
      name: pi.getSessionName(),
      title: pi.getSessionName(),
      messageCount: pi.getEntries().filter((e) => e.type === "message").length,
    });
  });

  it("keeps an index in step: appends are read incrementally, rewrites rescanned, junk skipped", async () => {
    const dir = await mkdtemp(join(tmpdir(), "arbor-list-index-"));
    const session = await createSession({ dir, cwd: "/p" });
    await session.appendMessage(user("first"));
    await writeFile(join(dir, "junk.jsonl"), "not a session\n");
    const skipped: string[] = [];
    expect(
      (await listSessions(dir, { onSkip: (path) => skipped.push(path) }))[0]?.messageCount,
    ).toBe(1);
    expect(skipped).toEqual([join(dir, "junk.jsonl")]);
    const index = JSON.parse(await readFile(join(dir, SESSION_INDEX_FILE), "utf8"));
    expect(Object.keys(index.files)).toEqual([session.location.slice(dir.length + 1)]);

    await session.appendMessage(user("second"));
    await session.setTitle("Renamed");
    expect((await listSessions(dir))[0]).toMatchObject({ messageCount: 2, title: "Renamed" });
    await session.close();

    // Rewritten behind the index's back with the same size: the mtime tells.
    const text = await readFile(session.location, "utf8");
    await writeFile(session.location, text.replace("Renamed", "Remamed"));
    await utimes(session.location, new Date(), new Date(Date.now() + 5000));
    expect((await listSessions(dir))[0]?.title).toBe("Remamed");

    // A corrupt index is rebuilt, never trusted.
    await writeFile(join(dir, SESSION_INDEX_FILE), "{broken");
    expect((await listSessions(dir))[0]?.messageCount).toBe(2);
  });

  it("puts sessions in pi's per-directory layout, named by creation time and id", async () => {
    expect(defaultSessionDir("/h", `/${"a".repeat(300)}`)).toMatch(
      /^\/h\/\.arbor\/sessions\/--a{198}-[0-9a-f]{16}--$/,
    );
    expect(defaultSessionDir("/home/ada", "/srv/arbor")).toBe(
      join("/home/ada", ".arbor", "sessions", "--srv-arbor--"),
    );
    expect(defaultSessionDir("/home/ada", "C:\\code\\app")).toBe(
      join("/home/ada", ".arbor", "sessions", "--C--code-app--"),
    );
    const home = await mkdtemp(join(tmpdir(), "arbor-home-"));
    const dir = defaultSessionDir(home, "/srv/arbor");
    const createdAt = Date.parse("2026-03-04T05:06:07.089Z");
    const session = await createSession({ dir, cwd: "/srv/arbor", now: () => createdAt });
    await session.close();
    expect(session.location).toBe(join(dir, `2026-03-04T05-06-07-089Z_${session.id}.jsonl`));
    expect(session.getHeader()).toMatchObject({
      cwd: "/srv/arbor",
      timestamp: "2026-03-04T05:06:07.089Z",
    });
    expect((await listSessions(dir)).map((info) => info.id)).toEqual([session.id]);
  });

  it("tells when each session was created and modified, and which session it was forked from", async () => {
    const dir = await mkdtemp(join(tmpdir(), "arbor-list-facts-"));
    const createdAt = Date.parse("2026-02-03T04:05:06.007Z");
    const session = await createSession({ dir, cwd: "/p", now: () => createdAt });
    const first = await session.appendMessage(user("fork from here"));
    const fork = await session.fork(first);
    await fork.close();
    await session.close();
    const list = await listSessions(dir);
    const original = list.find((info) => info.path === session.location);
    const forked = list.find((info) => info.path === fork.location);
    expect(original?.created.toISOString()).toBe("2026-02-03T04:05:06.007Z");
    expect(original?.parentSession).toBeUndefined();
    expect(forked?.parentSession).toBe(session.location);
  });

  it("takes modified from the last user or assistant message (pi's rule): navigation, labels and titles do not reorder the list", async () => {
    const dir = await mkdtemp(join(tmpdir(), "arbor-list-modified-"));
    let clock = Date.parse("2026-01-01T00:00:00.000Z");
    const now = () => clock;
    const older = await createSession({ dir, cwd: "/p", now });
    const q = await older.appendMessage({ role: "user", content: "old", timestamp: 1_000_000 });
    await older.appendMessage({ role: "assistant", content: [], timestamp: 2_000_000 });
    clock += 1000;
    const newer = await createSession({ dir, cwd: "/p", now });
    await newer.appendMessage({ role: "user", content: "new", timestamp: 3_000_000 });
    // A message without its own timestamp counts with its entry's time.
    clock = 4_000_000;
    await newer.appendMessage({ role: "assistant", content: [] });
    const empty = await createSession({ dir, cwd: "/p", now: () => 500_000 });
    await empty.close();
    clock = Date.now() + 60_000;
    // Later, on the older session: none of these is activity.
    await older.branch(q);
    await older.appendLabelChange(q, "here");
    await older.setTitle("Renamed later");
    await older.appendMessage({ role: "toolResult", content: "x", timestamp: 9_000_000 });
    await older.appendCustomEntry("state", { n: 1 });
    for (const closing of [false, true]) {
      if (closing) {
        await older.close();
        await newer.close();
        await utimes(older.location, new Date(), new Date(Date.now() + 10_000));
      }
      const list = await listSessions(dir);
      expect(list.map((info) => info.path)).toEqual([
        newer.location,
        older.location,
        empty.location,
      ]);
      expect(list.map((info) => info.modified.getTime())).toEqual([4_000_000, 2_000_000, 500_000]);
    }
    // The same from the index and from a scan without one.
    await writeFile(join(dir, SESSION_INDEX_FILE), "{broken");
    const rescanned = await listSessions(dir);
    expect(rescanned.map((info) => info.modified.getTime())).toEqual([
      4_000_000, 2_000_000, 500_000,
    ]);
  });

  it("skips a folder, a FIFO and a dangling link named *.jsonl, naming each, and lists the rest", async () => {
    const dir = await mkdtemp(join(tmpdir(), "arbor-list-odd-"));
    const session = await createSession({ dir, cwd: "/srv/project" });
    await session.appendMessage(user("still listed"));
    await session.close();
    await mkdir(join(dir, "folder.jsonl"));
    execFileSync("mkfifo", [join(dir, "pipe.jsonl")]);
    await symlink(join(dir, "gone"), join(dir, "dangling.jsonl"));
    const skipped: string[] = [];

    const listed = await listSessions(dir, {
      onSkip: (path, reason) => skipped.push(`${path}: ${reason}`),
    });

    expect(listed.map((info) => info.firstUserMessage)).toEqual(["still listed"]);
    expect(skipped.sort()).toEqual([
      `${join(dir, "folder.jsonl")}: it is not a regular file`,
      `${join(dir, "pipe.jsonl")}: it is not a regular file`,
    ]);
  });

  it("returns nothing for a missing directory", async () => {
    expect(await listSessions(join(tmpdir(), "arbor-does-not-exist-42"))).toEqual([]);
  });
});

describe("deleteSession", () => {
  it("deletes a closed session and drops it from the listing", async () => {
    const dir = await mkdtemp(join(tmpdir(), "arbor-delete-"));
    const session = await createSession({ dir, cwd: "/p" });
    await session.appendMessage(user("bye"));
    await listSessions(dir);
    await expect(deleteSession(session.location)).rejects.toBeInstanceOf(SessionLockedError);
    await session.close();
    await deleteSession(session.location);
    expect(await listSessions(dir)).toEqual([]);
  });
});
