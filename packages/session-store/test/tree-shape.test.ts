import { describe, expect, it } from "vitest";
import { MemorySessionStorage, Session, type SessionTreeNode } from "../src/index.js";

const header =
  '{"type":"session","version":3,"id":"shape","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}';

function message(id: string, parent: string | null, text = id): string {
  return JSON.stringify({
    type: "message",
    id,
    parentId: parent,
    timestamp: "2026-01-01T00:00:01.000Z",
    message: { role: "user", content: text, timestamp: 1 },
  });
}

async function open(lines: string[], readOnly = true): Promise<Session> {
  return Session.open(MemorySessionStorage.from(`${[header, ...lines].join("\n")}\n`), {
    readOnly,
  });
}

/** Every entry id of a forest, walked without recursion. */
function idsOf(forest: SessionTreeNode[]): string[] {
  const ids: string[] = [];
  const stack = [...forest].reverse();
  while (stack.length > 0) {
    const node = stack.pop() as SessionTreeNode;
    ids.push(node.entry.id);
    for (let i = node.children.length - 1; i >= 0; i--)
      stack.push(node.children[i] as SessionTreeNode);
  }
  return ids;
}

describe("a session tree's shape", () => {
  it("reports loops of parents and keeps every entry of them reachable", async () => {
    // a → c → b → a (a loop), d hangs below b, e is a plain root with a child f.
    const session = await open([
      message("a", "c"),
      message("b", "a"),
      message("c", "b"),
      message("d", "b"),
      message("e", null),
      message("f", "e"),
    ]);
    expect(session.problems.map((p) => [p.kind, p.line])).toEqual([["parent_cycle", 2]]);
    expect(session.verify().map((p) => p.kind)).toEqual(["parent_cycle"]);
    const tree = session.getTree();
    expect(tree.map((n) => n.entry.id)).toEqual(["e", "a"]);
    expect(idsOf(tree).sort()).toEqual(["a", "b", "c", "d", "e", "f"]);
    expect(new Set(idsOf(tree)).size).toBe(6);
    expect(session.getBranch("d").map((e) => e.id)).toEqual(["c", "a", "b", "d"]);
  });

  it("reports each of two separate loops once", async () => {
    const session = await open([
      message("x", "y"),
      message("y", "x"),
      message("p", "q"),
      message("q", "p"),
    ]);
    expect(session.problems.map((p) => p.kind)).toEqual(["parent_cycle", "parent_cycle"]);
    expect(idsOf(session.getTree()).sort()).toEqual(["p", "q", "x", "y"]);
  });

  it("reports entries whose parent is missing, shown as roots", async () => {
    const session = await open([message("a", null), message("b", "gone"), message("c", "b")]);
    expect(session.problems).toEqual([
      expect.objectContaining({ kind: "missing_parent", line: 3 }),
    ]);
    expect(session.problems[0]?.message).toContain('"gone"');
    expect(session.getTree().map((n) => n.entry.id)).toEqual(["a", "b"]);
  });

  it("reports nothing for a well-formed session, and a writer still opens a broken one", async () => {
    expect((await open([message("a", null), message("b", "a")])).problems).toEqual([]);
    const writer = await open([message("a", "b"), message("b", "a")], false);
    const added = await writer.appendMessage({ role: "user", content: "more", timestamp: 2 });
    expect(idsOf(writer.getTree())).toContain(added);
    await writer.close();
  });

  it("walks a linear session of 100,000 entries without recursion", async () => {
    const count = 100_000;
    const lines: string[] = [];
    for (let i = 0; i < count; i++) lines.push(message(`e${i}`, i === 0 ? null : `e${i - 1}`));
    // A loop at the end of the chain's file, too: 3 entries that lead round.
    lines.push(message("l1", "l3"), message("l2", "l1"), message("l3", "l2"));
    const session = await open(lines);
    expect(session.verify().map((p) => p.kind)).toEqual(["parent_cycle"]);
    const tree = session.getTree();
    expect(idsOf(tree)).toHaveLength(count + 3);
    expect(session.getBranch(`e${count - 1}`)).toHaveLength(count);
    expect(session.buildSessionContext(`e${count - 1}`).messages).toHaveLength(count);
    expect(tree[0]?.children[0]?.entry.id).toBe("e1");
  });
});
