import { mkdtemp, open as openHandle, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openSessionFile } from "../src/index.js";

const line = (value: unknown) => JSON.stringify(value);
const at = (second: number) => `2026-01-01T00:00:${String(second).padStart(2, "0")}.000Z`;

/** A v2 file as pi wrote them before v3: ids and parents, and the old `hookMessage` role. */
function v2File() {
  const lines = {
    header: line({ type: "session", version: 2, id: "v2-session", timestamp: at(0), cwd: "/v2" }),
    user: line({
      type: "message",
      id: "u1",
      parentId: null,
      timestamp: at(1),
      message: { role: "user", content: "hello", timestamp: 1 },
      addedByAPlugin: { keep: ["me", 1, null] },
    }),
    hook: line({
      type: "message",
      id: "h1",
      parentId: "u1",
      timestamp: at(2),
      message: { role: "hookMessage", customType: "reminder", content: "be brief", timestamp: 2 },
    }),
    future: line({
      type: "some_future_entry",
      id: "f1",
      parentId: "h1",
      timestamp: at(3),
      payload: { nested: { deep: [1, "two", { three: true }] } },
    }),
    assistant: line({
      type: "message",
      id: "a1",
      parentId: "f1",
      timestamp: at(4),
      message: {
        role: "assistant",
        content: [{ type: "text", text: "hi" }],
        provider: "p",
        model: "m",
        timestamp: 4,
      },
    }),
  };
  return { lines, text: `${Object.values(lines).join("\n")}\n` };
}

describe("migrating a v2 file", () => {
  it("renames hookMessage to custom, keeps unknown entries and fields byte for byte, and keeps a backup", async () => {
    const dir = await mkdtemp(join(tmpdir(), "arbor-v2-"));
    const path = join(dir, "old.jsonl");
    const { lines, text } = v2File();
    await writeFile(path, text);

    const session = await openSessionFile(path);
    expect(session.getHeader()).toMatchObject({ version: 3, id: "v2-session", cwd: "/v2" });
    expect(session.getEntry("h1")).toMatchObject({ message: { role: "custom" } });
    expect(session.getEntries().map((entry) => entry.id)).toEqual(["u1", "h1", "f1", "a1"]);
    expect(session.getLeafId()).toBe("a1");
    await session.close();

    expect(await readFile(`${path}.v2.bak`, "utf8")).toBe(text);
    const migrated = (await readFile(path, "utf8")).split("\n");
    expect(JSON.parse(migrated[0] as string)).toMatchObject({ type: "session", version: 3 });
    // Lines the migration has no business with come back exactly as they were.
    expect(migrated.slice(1)).toEqual([
      lines.user,
      lines.hook.replace('"role":"hookMessage"', '"role":"custom"'),
      lines.future,
      lines.assistant,
      "",
    ]);
  });

  it("replaces the file by rename (the old inode keeps the old bytes) and is idempotent", async () => {
    const dir = await mkdtemp(join(tmpdir(), "arbor-v2-atomic-"));
    const path = join(dir, "old.jsonl");
    const { text } = v2File();
    await writeFile(path, text);
    const before = await stat(path);
    // A reader that had the file open before the migration still sees the original whole:
    // the new content went to a temporary file that was renamed over it, never written in place.
    const reader = await openHandle(path, "r");
    try {
      const session = await openSessionFile(path);
      await session.close();
      expect((await reader.readFile()).toString("utf8")).toBe(text);
    } finally {
      await reader.close();
    }
    const after = await stat(path);
    expect(after.ino).not.toBe(before.ino);
    expect((await readdir(dir)).sort()).toEqual(["old.jsonl", "old.jsonl.v2.bak"]);

    // Opening the migrated file again changes nothing: no rewrite, no new backup.
    const migrated = await readFile(path, "utf8");
    const again = await openSessionFile(path);
    expect(again.getEntries()).toHaveLength(4);
    await again.close();
    expect(await readFile(path, "utf8")).toBe(migrated);
    expect((await stat(path)).ino).toBe(after.ino);
    expect(await readFile(`${path}.v2.bak`, "utf8")).toBe(text);
    expect((await readdir(dir)).sort()).toEqual(["old.jsonl", "old.jsonl.v2.bak"]);
  });
});
