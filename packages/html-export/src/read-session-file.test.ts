import { readFileSync } from "node:fs";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSessionFile, SessionFileError } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import { PI_FIXTURES, readOracle, v3FixtureNames } from "../test/fixtures.js";
import { readSessionSnapshot, snapshotOfSession } from "./read-session-file.js";

describe("readSessionSnapshot", () => {
  it("takes the leaf a session navigated to, keeps pointers out, and titles it", async () => {
    const path = join(await mkdtemp(join(tmpdir(), "arbor-snapshot-")), "s.jsonl");
    const session = await openSessionFile(path, { create: true, cwd: "/p" });
    const a = await session.appendMessage({
      role: "user",
      content: "first question",
      timestamp: 1,
    });
    await session.appendMessage({ role: "user", content: "second", timestamp: 2 });
    await session.branch(a);
    const live = snapshotOfSession(session);
    await session.close();

    const snapshot = await readSessionSnapshot(path);
    expect(snapshot).toEqual(live);
    expect(snapshot.leafId).toBe(a);
    expect(snapshot.entries.map((e) => e.type)).toEqual(["message", "message"]);
    expect(snapshot.title).toBe("first question");
  });

  it("rejects a file that is not a session with session-store's typed error", async () => {
    const path = join(await mkdtemp(join(tmpdir(), "arbor-snapshot-bad-")), "bad.jsonl");
    await writeFile(path, "garbage\n");
    const error = await readSessionSnapshot(path).catch((e: unknown) => e);
    expect(SessionFileError.isInstance(error)).toBe(true);
  });

  it.each(v3FixtureNames())("reads pi fixture %s with pi's entry count and leaf", async (name) => {
    const snapshot = await readSessionSnapshot(`${PI_FIXTURES}${name}.jsonl`);
    const oracle = readOracle(name);
    expect(snapshot.entries).toHaveLength(oracle.entryCount);
    expect(snapshot.leafId).toBe(oracle.leafId);
  });

  it.each(["v1-before-compaction", "v1-large-session"])(
    "migrates legacy pi fixture %s in memory with pi's counts",
    async (name) => {
      const snapshot = await readSessionSnapshot(`${PI_FIXTURES}${name}.jsonl`);
      const oracle = JSON.parse(readFileSync(`${PI_FIXTURES}${name}.oracle.json`, "utf8")) as {
        entryCount: number;
        leafBranchLength: number;
      };
      expect(snapshot.entries).toHaveLength(oracle.entryCount);
      let length = 0;
      const byId = new Map(snapshot.entries.map((e) => [e.id, e]));
      for (let id = snapshot.leafId; id; id = byId.get(id)?.parentId ?? null) length++;
      expect(length).toBe(oracle.leafBranchLength);
    },
  );
});
