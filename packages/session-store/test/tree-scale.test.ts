import { describe, expect, it } from "vitest";
import { MemorySessionStorage, Session } from "../src/index.js";

const header =
  '{"type":"session","version":3,"id":"scale","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}';

describe("a session of 100,000 entries", () => {
  it("answers getChildren for every entry in O(children), not O(entries)", async () => {
    // One long chain plus a fan of 1,000 children on the root: a scan per call would be
    // 100,000 × 100,000 steps (minutes); a children index answers in milliseconds.
    const lines = [header];
    const count = 100_000;
    for (let i = 0; i < count; i++) {
      const parent = i === 0 ? null : i <= 1_000 ? "e0" : `e${i - 1}`;
      lines.push(
        `{"type":"message","id":"e${i}","parentId":${parent === null ? "null" : `"${parent}"`},"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"${i}"}}`,
      );
    }
    const session = await Session.open(MemorySessionStorage.from(`${lines.join("\n")}\n`), {
      readOnly: true,
    });
    const started = performance.now();
    let children = 0;
    for (let i = 0; i < count; i++) children += session.getChildren(`e${i}`).length;
    const elapsed = performance.now() - started;
    expect(children).toBe(count - 1);
    expect(session.getChildren("e0")).toHaveLength(1_000);
    expect(session.getChildren(`e${count - 1}`)).toEqual([]);
    expect(elapsed).toBeLessThan(3_000);
  });
});
