import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { PI_FIXTURES, readOracle, v3FixtureNames } from "../test/fixtures.js";
import { parseSessionJsonl, readSessionSnapshot, SessionFileError } from "./read-session-file.js";

const header = JSON.stringify({
  type: "session",
  version: 3,
  id: "s",
  timestamp: "2026-01-01T00:00:00.000Z",
});
const entry = (id: string, parentId: string | null, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    type: "message",
    id,
    parentId,
    timestamp: "2026-01-01T00:00:01.000Z",
    message: { role: "user", content: id },
    ...extra,
  });

describe("parseSessionJsonl", () => {
  it("skips blank, torn and id-less lines and keeps file order", () => {
    const text = [
      header,
      entry("a", null),
      "",
      "{not json",
      '{"type":"message"}',
      "[1,2]",
      entry("b", "a"),
      '{"type":"message","id":"c","par',
    ].join("\n");
    const snapshot = parseSessionJsonl(text);
    expect(snapshot.entries.map((e) => e.id)).toEqual(["a", "b"]);
    expect(snapshot.leafId).toBe("b");
    expect(snapshot.header.id).toBe("s");
  });

  it("follows a trailing leaf pointer entry and keeps it out of the entries", () => {
    const pointer = JSON.stringify({
      type: "leaf",
      id: "p",
      parentId: "a",
      timestamp: "2026-01-01T00:00:02.000Z",
      targetId: "a",
    });
    const snapshot = parseSessionJsonl(
      [header, entry("a", null), entry("b", "a"), pointer].join("\n"),
    );
    expect(snapshot.leafId).toBe("a");
    expect(snapshot.entries.map((e) => e.id)).toEqual(["a", "b"]);
  });

  it("rejects a file without a session header with a typed error", () => {
    expect(() => parseSessionJsonl(entry("a", null))).toThrow(SessionFileError);
    try {
      parseSessionJsonl("garbage");
    } catch (error) {
      expect(SessionFileError.isInstance(error)).toBe(true);
    }
  });

  it.each(v3FixtureNames())("reads pi fixture %s with pi's entry count and leaf", async (name) => {
    const snapshot = await readSessionSnapshot(`${PI_FIXTURES}${name}.jsonl`);
    const oracle = readOracle(name);
    expect(snapshot.entries).toHaveLength(oracle.entryCount);
    expect(snapshot.leafId).toBe(oracle.leafId);
  });

  it.each(["v1-before-compaction", "v1-large-session"])(
    "upgrades legacy pi fixture %s in memory with pi's counts",
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
      const compaction = snapshot.entries.find((e) => e.type === "compaction");
      if (compaction) expect(byId.has(compaction.firstKeptEntryId as string)).toBe(true);
    },
  );
});
