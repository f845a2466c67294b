import { describe, expect, it } from "vitest";
import { MemorySessionStorage, Session } from "../src/index.js";

const header =
  '{"type":"session","version":3,"id":"h","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}';
const line = (id: string, parentId: string | null, extra = "") =>
  `{"type":"message","id":"${id}","parentId":${parentId === null ? "null" : `"${parentId}"`},"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"x"}${extra}}`;

async function openText(text: string) {
  return Session.open(MemorySessionStorage.from(text), { readOnly: true });
}

describe("hostile session files", () => {
  it("survives a parent cycle without hanging", async () => {
    const session = await openText(
      `${header}\n${line("a", "b")}\n${line("b", "a")}\n${line("c", "c")}\n`,
    );
    expect(session.getBranch("a").map((e) => e.id)).toEqual(["b", "a"]);
    expect(session.buildSessionContext("a").messages).toHaveLength(2);
    // An entry that is its own parent is a root, as in pi; the loop a ↔ b is reported and
    // shown from its first entry, so no entry goes missing from the tree.
    expect(session.getTree().map((n) => n.entry.id)).toEqual(["c", "a"]);
    expect(session.problems.map((p) => p.kind)).toEqual(["parent_cycle"]);
  });

  it("links a child that appears before its parent", async () => {
    const session = await openText(
      `${header}\n${line("child", "parent")}\n${line("parent", null)}\n`,
    );
    expect(session.getChildren("parent").map((e) => e.id)).toEqual(["child"]);
    expect(session.getTree().map((n) => n.children.map((c) => c.entry.id))).toEqual([["child"]]);
  });

  it("keeps __proto__ keys as plain data", async () => {
    const session = await openText(
      `${header}\n${line("p", null, ',"__proto__":{"polluted":true}')}\n`,
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(session.getEntry("p")).toBeDefined();
  });

  it("reports a deeply nested line instead of crashing", async () => {
    const deep = `${"[".repeat(200_000)}${"]".repeat(200_000)}`;
    const session = await openText(
      `${header}\n${line("ok", null)}\n${deep}\n${line("ok2", "ok")}\n`,
    );
    expect(session.getEntries().map((e) => e.id)).toEqual(["ok", "ok2"]);
    expect(session.problems).toHaveLength(1);
  });

  it("opens a single 30 MB message and reports it if it is broken", async () => {
    const big = "y".repeat(30 * 1024 * 1024);
    const whole = `{"type":"message","id":"big","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"toolResult","content":[{"type":"text","text":"${big}"}]}}`;
    const broken = `${whole.slice(0, -10)}"oops":}}`
      .replace('"id":"big"', '"id":"bad"')
      .replace('"parentId":null', '"parentId":"big"');
    const session = await openText(`${header}\n${whole}\n${broken}\n${line("after", "bad")}\n`);
    expect(session.getEntries().map((e) => e.id)).toEqual(["big", "bad", "after"]);
    expect(session.getEntry("bad")?.type).toBe("unreadable");
    expect(session.verify().map((p) => p.line)).toEqual([3]);
    expect(session.buildSessionContext().messages).toHaveLength(2);
  });

  it("reads non-ASCII ids of long lines, indexed from their first bytes, exactly", async () => {
    const long = (id: string, parent: string | null) =>
      `{"type":"message","id":"${id}","parentId":${parent === null ? "null" : `"${parent}"`},"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"toolResult","content":[{"type":"text","text":"${"w".repeat(20_000)}"}]}}`;
    const session = await openText(
      `${header}
${long("ünï-1", null)}
${long("木-2", "ünï-1")}
${line("ä3", "木-2")}
`,
    );
    expect(session.getBranch().map((e) => e.id)).toEqual(["ünï-1", "木-2", "ä3"]);
    expect(session.getChildren("ünï-1").map((e) => e.id)).toEqual(["木-2"]);
    expect(session.verify()).toEqual([]);
  });

  it("builds a compacted context without reading the lines the compaction replaced", async () => {
    const big = (id: string, parent: string | null, body: string) =>
      `{"type":"message","id":"${id}","parentId":${parent === null ? "null" : `"${parent}"`},"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"toolResult","content":[{"type":"text","text":"${body}"}]}}`;
    const brokenOld = big("old", null, "z".repeat(40_000)).slice(0, -3);
    const compaction =
      '{"type":"compaction","id":"c","parentId":"kept","timestamp":"2026-01-01T00:00:02.000Z","summary":"earlier work","firstKeptEntryId":"kept","tokensBefore":9}';
    const session = await openText(
      `${header}\n${brokenOld}\n${big("kept", "old", "k".repeat(40_000))}\n${compaction}\n${line("new", "c")}\n`,
    );
    const context = session.buildSessionContext();
    expect(context.messages.map((m) => m.role)).toEqual([
      "compactionSummary",
      "toolResult",
      "user",
    ]);
    expect(session.problems).toEqual([]);
    expect(session.verify().map((p) => p.line)).toEqual([2]);
  });

  it("rejects a header from a newer format version without touching the file", async () => {
    const text =
      '{"type":"session","version":99,"id":"x","timestamp":"2026-01-01T00:00:00.000Z"}\n';
    const storage = MemorySessionStorage.from(text);
    await expect(Session.open(storage)).rejects.toThrow(/format version 99 is newer/);
    expect(Buffer.from(storage.bytes() ?? []).toString()).toBe(text);
  });
});
