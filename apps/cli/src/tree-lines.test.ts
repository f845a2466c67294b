import { MemorySessionStorage, MemorySessionStore, Session } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import { layoutTree, renderTreeText } from "./tree-lines.js";
import { filterTreeLines } from "./ui/tree-view.js";

async function branchedSession() {
  const session = await Session.open(new MemorySessionStorage(), { create: true });
  const ask = await session.appendMessage({ role: "user", content: "question", timestamp: 1 });
  const first = await session.appendMessage({
    role: "assistant",
    content: [{ type: "text", text: "first answer" }],
    timestamp: 2,
  });
  await session.appendLabelChange(first, "old");
  await session.branch(ask);
  const second = await session.appendMessage({
    role: "assistant",
    content: [{ type: "text", text: "second answer" }],
    timestamp: 3,
  });
  return { session, ask, first, second };
}

describe("layoutTree", () => {
  it("lays out both branches, marks the active path and the leaf, and hides label entries", async () => {
    const { session, ask, first, second } = await branchedSession();
    const lines = layoutTree(session);
    expect(
      lines.map((line) => [line.id, line.depth, line.kind, line.active, line.leaf, line.label]),
    ).toEqual([
      [ask, 0, "user", true, false, undefined],
      [first, 1, "assistant", false, false, "old"],
      [second, 1, "assistant", true, true, undefined],
    ]);
    expect(renderTreeText(lines)).toContain(`▶ └─ ${second} assistant: second answer`);
    expect(lines.map((line) => line.prefix)).toEqual(["", "├─ ", "└─ "]);
  });

  it("draws connectors down nested branches: │ beside a branch that goes on, none past the last", async () => {
    const store = new MemorySessionStore();
    const session = await store.create({ cwd: "/p" });
    const user = (content: string) => ({ role: "user" as const, content, timestamp: 1 });
    const root = await session.appendMessage(user("root"));
    const a = await session.appendMessage(user("a"));
    const a1 = await session.appendMessage(user("a1"));
    await session.branch(a);
    const a2 = await session.appendMessage(user("a2"));
    await session.branch(root);
    const b = await session.appendMessage(user("b"));
    const b1 = await session.appendMessage(user("b1"));
    const text = layoutTree(session)
      .map((line) => `${line.prefix}${line.text}`)
      .join("\n");
    expect(text).toBe(["root", "├─ a", "│  ├─ a1", "│  └─ a2", "└─ b", "   b1"].join("\n"));
    expect([a1, a2, b1]).toHaveLength(3);
    expect(b).toBeDefined();
  });

  it("filters by search text, messages only and labelled entries", async () => {
    const { session, first } = await branchedSession();
    const lines = layoutTree(session);
    expect(filterTreeLines(lines, "FIRST", "all").map((line) => line.id)).toEqual([first]);
    expect(filterTreeLines(lines, "", "labeled-only").map((line) => line.id)).toEqual([first]);
    expect(filterTreeLines(lines, "", "default")).toHaveLength(3);
  });
});

describe("layoutTree on a linear session of 100,000 entries", () => {
  it("lays it out without recursion, every entry once, at one depth", async () => {
    const count = 100_000;
    const lines = [
      '{"type":"session","version":3,"id":"deep","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}',
    ];
    for (let i = 0; i < count; i++) {
      lines.push(
        JSON.stringify({
          type: "message",
          id: `e${i}`,
          parentId: i === 0 ? null : `e${i - 1}`,
          timestamp: "2026-01-01T00:00:01.000Z",
          message: { role: "user", content: `q${i}`, timestamp: 1 },
        }),
      );
    }
    const session = await Session.open(MemorySessionStorage.from(`${lines.join("\n")}\n`), {
      readOnly: true,
    });
    const laid = layoutTree(session);
    expect(laid).toHaveLength(count);
    expect(laid.every((line) => line.depth === 0 && line.prefix === "")).toBe(true);
    expect(laid.at(-1)).toMatchObject({ id: `e${count - 1}`, leaf: true, active: true });
    expect(renderTreeText(laid).split("\n").length).toBeGreaterThanOrEqual(count);
  }, 60_000);
});
