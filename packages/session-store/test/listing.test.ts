import { copyFile, mkdtemp, readFile, stat, utimes, writeFile } from "node:fs/promises";
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
    expect(list.map((s) => s.path)).toEqual([session.location, join(dir, "pi.jsonl")]);
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
    const forkTime = new Date(Date.now() + 60_000);
    await utimes(fork.location, forkTime, forkTime);

    const list = await listSessions(dir);
    expect(list.map((info) => info.path)).toEqual([fork.location, session.location]);
    const [forked, original] = list;
    expect(original?.created.toISOString()).toBe("2026-02-03T04:05:06.007Z");
    expect(original?.parentSession).toBeUndefined();
    expect(forked?.parentSession).toBe(session.location);
    expect(forked?.modified.getTime()).toBe(forkTime.getTime());
    for (const info of list) {
      const stats = await stat(info.path);
      expect(info.modified.getTime()).toBe(stats.mtime.getTime());
    }
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
