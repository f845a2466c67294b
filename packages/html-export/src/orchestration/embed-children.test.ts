import { describe, expect, it, vi } from "vitest";
import {
  childRecord,
  childSession,
  entry,
  parentSession,
  say,
} from "../../test/orchestration-sessions.js";
import { buildPageData } from "../page-data.js";
import type { SessionSnapshot } from "../session-snapshot.js";
import { ChildOptionsError } from "./child-options-error.js";
import { childExportFileName } from "./export-file-name.js";

function loaderOf(...sessions: SessionSnapshot[]) {
  const byId = new Map(sessions.map((s) => [String(s.header.id), s]));
  return vi.fn((id: string) => byId.get(id));
}

function idsUnique(ids: string[]): boolean {
  return new Set(ids).size === ids.length;
}

describe("child-session cards", () => {
  it("reads agent, role, path, outcome, tokens and cost, and links the child's export file", () => {
    const parent = parentSession("P", ["child-1"]);
    const data = buildPageData(parent);
    expect(data.orchestration.children["P-c0r"]).toEqual({
      childSessionId: "child-1",
      role: "subagent",
      agent: "researcher",
      agentPath: "main:researcher",
      outcome: "running",
      fileName: "child-1.html",
    });
    expect(data.orchestration.children["P-c0"]).toMatchObject({
      outcome: "succeeded",
      tokens: 1500,
      cost: 0.0123,
      fileName: "child-1.html",
    });
    // Without withChildren nothing is embedded and every entry is kept as it was.
    expect(data.entries).toEqual(parent.entries);
    expect(data.orchestration.embedded).toEqual({});
  });

  it("keeps unknown fields, roles and outcomes; a bad shape stays ordinary extension data", () => {
    const entries = [
      childRecord("ok", null, "c", "exploded", { role: "critic", extra: { nested: true } }),
      entry("no-id", null, "custom", {
        customType: "arbor.orchestration.child",
        data: { role: "subagent", agent: "a", agentPath: "a", outcome: "running" },
      }),
      entry("bad-role", null, "custom", {
        customType: "arbor.orchestration.child",
        data: { childSessionId: "c", role: 7, agent: "a", agentPath: "a", outcome: "running" },
      }),
      entry("null-data", null, "custom", { customType: "arbor.orchestration.child", data: null }),
      entry("bad-cost", null, "custom", {
        customType: "arbor.orchestration.child",
        data: {
          childSessionId: "c",
          role: "r",
          agent: "a",
          agentPath: "a",
          outcome: "x",
          cost: "1",
        },
      }),
      entry("wrong-type", null, "custom_message", {
        customType: "arbor.orchestration.child",
        data: { childSessionId: "c", role: "r", agent: "a", agentPath: "a", outcome: "x" },
      }),
    ];
    const data = buildPageData({ header: { id: "S", timestamp: "" }, entries, leafId: null });
    expect(Object.keys(data.orchestration.children)).toEqual(["ok"]);
    expect(data.orchestration.children.ok).toMatchObject({ role: "critic", outcome: "exploded" });
    expect(data.entries).toEqual(entries);
  });

  it.each([
    ["../../etc/passwd", "_etc_passwd.html"],
    ["..", "session.html"],
    ["a/b\\c", "a_b_c.html"],
    ["CON", "_CON.html"],
    [".hidden", "hidden.html"],
    ["x\u0000y\n<script>", "x_y_script_.html"],
    ["%2e%2e%2fetc", "_2e_2e_2fetc.html"],
  ])("child id %j links a plain file name in the same folder (%s)", (id, name) => {
    expect(childExportFileName(id)).toBe(name);
    const data = buildPageData(parentSession("P", [id]));
    expect(data.orchestration.children["P-c0"]?.fileName).toBe(name);
  });

  it("cuts a very long id to a bounded file name", () => {
    const name = childExportFileName("é".repeat(500));
    expect(new TextEncoder().encode(name).length).toBeLessThanOrEqual(125);
    expect(name.endsWith(".html")).toBe(true);
  });
});

describe("ancestry and system prompt entries", () => {
  it("reads the parent link and the prompt text; a bad shape is not read", () => {
    const entries = [
      childSession("C", "P").entries[0] as SessionSnapshot["entries"][number],
      entry("sp", "e0", "custom", {
        customType: "arbor.system-prompt",
        data: { text: "You are careful.", v: 2 },
      }),
      entry("sp-empty", "sp", "custom", { customType: "arbor.system-prompt", data: { text: "" } }),
      entry("sp-bad", "sp", "custom", { customType: "arbor.system-prompt", data: { text: 5 } }),
      entry("anc-bad", "sp", "custom", {
        customType: "arbor.orchestration.ancestry",
        data: { parentId: "" },
      }),
    ];
    const data = buildPageData({ header: { id: "C", timestamp: "" }, entries, leafId: null });
    expect(data.orchestration.ancestry).toEqual({
      e0: expect.objectContaining({
        parentId: "P",
        agentPath: "main:researcher",
        agent: "researcher",
        fileName: "P.html",
      }),
    });
    expect(data.orchestration.ancestry.e0?.target).toBeUndefined();
    expect(data.orchestration.systemPrompts).toEqual({ sp: "You are careful.", "sp-empty": "" });
  });
});

describe("withChildren", () => {
  it("embeds a child's tree under the parent's child entry, recursively, ids kept apart", () => {
    const parent = parentSession("P", ["C"]);
    const child = childSession("C", "P", ["G"]);
    const grandchild = childSession("G", "C");
    const loadChild = loaderOf(child, grandchild);
    const data = buildPageData(parent, undefined, { loadChild });
    expect(data.entries).toHaveLength(
      parent.entries.length + child.entries.length + grandchild.entries.length,
    );
    expect(idsUnique(data.entries.map((e) => e.id))).toBe(true);
    const view = data.orchestration;
    const target = view.children["P-c0"]?.target as string;
    expect(view.children["P-c0r"]?.target).toBe(target);
    const start = data.entries.find((e) => e.id === target);
    expect(start).toMatchObject({ parentId: "P-c0", customType: "arbor.orchestration.ancestry" });
    expect(view.embedded[target]).toEqual({
      sessionId: "C",
      depth: 1,
      parentEntryId: "P-c0",
      entryCount: child.entries.length,
    });
    // Opening the child shows its own leaf, not a grandchild's.
    const childLeaf = view.children["P-c0"]?.targetLeaf as string;
    expect(data.entries.find((e) => e.id === childLeaf)).toMatchObject({
      message: { content: [{ text: "Result of C" }] },
    });
    // The child's ancestry entry links back to the parent's entry, on the parent's leaf path.
    expect(view.ancestry[target]).toMatchObject({ target: "P-c0", targetLeaf: "P-a" });
    // The grandchild hangs under the child's own card.
    const childCard = Object.entries(view.children).find(([, c]) => c.childSessionId === "G");
    const grandStart = childCard?.[1].target as string;
    expect(view.embedded[grandStart]).toMatchObject({ sessionId: "G", depth: 2 });
    // The exported session's own path, leaf and totals are unchanged.
    expect(data.leafId).toBe("P-a");
    expect(data.totals.assistantMessages).toBe(1);
    expect(loadChild.mock.calls.map(([id]) => id)).toEqual(["C", "G"]);
  });

  it("remaps references inside a child (labels, compactions) and never collides with the parent's ids", () => {
    const parent = parentSession("P", ["C"]);
    // The parent already holds ids the embedding could produce.
    parent.entries.push(say("child1:e1", "P-a", "user", "hostile"));
    parent.entries.push(say("child2:e1", "child1:e1", "user", "hostile"));
    const child = childSession("C", "P");
    child.entries.push(entry("lab", "e2", "label", { targetId: "e1", label: "important" }));
    child.entries.push(
      entry("cmp", "lab", "compaction", { firstKeptEntryId: "e1", summary: "s", tokensBefore: 9 }),
    );
    // An entry whose parent is not in the child's file still hangs under the card, not at the top.
    child.entries.push(say("orphan", "not-in-file", "user", "orphan"));
    const data = buildPageData(parent, undefined, { loadChild: loaderOf(child) });
    expect(idsUnique(data.entries.map((e) => e.id))).toBe(true);
    expect(data.roots.map((i) => data.entries[i]?.id)).toEqual(["P-u"]);
    const cmp = data.entries.find((e) => e.type === "compaction");
    const kept = data.entries.find((e) => e.id === cmp?.firstKeptEntryId);
    expect(kept).toMatchObject({ message: { content: [{ text: "Subtask for C" }] } });
    expect(data.labels[kept?.id as string]).toBe("important");
    // The parent's hostile entries are untouched.
    expect(data.entries.filter((e) => e.id.startsWith("child1:e1"))).toHaveLength(1);
  });

  it("ends cycles: a child naming its parent, or itself, links to where it is shown", () => {
    const parent = parentSession("P", ["C"]);
    const child = childSession("C", "P", ["P", "C"]);
    const loadChild = loaderOf(parent, child);
    const data = buildPageData(parent, undefined, { loadChild, maxDepth: 50 });
    expect(loadChild.mock.calls.map(([id]) => id)).toEqual(["C"]);
    const cards = Object.values(data.orchestration.children);
    const back = cards.find((c) => c.childSessionId === "P");
    expect(back).toMatchObject({
      target: "P-u",
      targetLeaf: "P-a",
      note: "This session is already shown on this page.",
    });
    const self = cards.filter((c) => c.childSessionId === "C" && c.note);
    expect(self).toHaveLength(1);
    expect(data.entries).toHaveLength(parent.entries.length + child.entries.length);
  });

  it("notes a missing child, one that fails to load, and one below the depth limit", () => {
    const parent = parentSession("P", ["gone", "broken", "C"]);
    const child = childSession("C", "P", ["G"]);
    const loadChild = vi.fn((id: string) => {
      if (id === "broken") throw new Error("unreadable line 3");
      return id === "C" ? child : id === "G" ? childSession("G", "C") : undefined;
    });
    const data = buildPageData(parent, undefined, { loadChild, maxDepth: 1 });
    const note = (id: string) =>
      Object.values(data.orchestration.children).find((c) => c.childSessionId === id)?.note;
    expect(note("gone")).toBe("Missing: the child session was not found.");
    expect(note("broken")).toBe(
      "Missing: the child session could not be loaded (unreadable line 3).",
    );
    expect(note("G")).toBe("Not embedded: more than 1 levels below the exported session.");
    expect(loadChild).not.toHaveBeenCalledWith("G");
    expect(Object.values(data.orchestration.embedded).map((e) => e.sessionId)).toEqual(["C"]);
  });

  it("embeds a huge child, and notes one over the entry limit without loading it into the page", () => {
    const parent = parentSession("P", ["huge", "small"]);
    const huge = childSession("huge", "P", [], 20_000);
    const small = childSession("small", "P");
    const started = performance.now();
    const data = buildPageData(parent, undefined, { loadChild: loaderOf(huge, small) });
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(data.entries).toHaveLength(
      parent.entries.length + huge.entries.length + small.entries.length,
    );
    const limited = buildPageData(parent, undefined, {
      loadChild: loaderOf(huge, small),
      maxEntries: 1000,
    });
    const hugeCard = Object.values(limited.orchestration.children).find(
      (c) => c.childSessionId === "huge",
    );
    expect(hugeCard?.note).toMatch(/^Not embedded: 20003 entries/);
    expect(hugeCard?.target).toBeUndefined();
    expect(limited.entries).toHaveLength(parent.entries.length + small.entries.length);
  });
});

describe("withChildren limits", () => {
  it.each([
    ["maxDepth", Number.NaN],
    ["maxDepth", -1],
    ["maxDepth", 1.5],
    ["maxDepth", Number.POSITIVE_INFINITY],
    ["maxEntries", -5],
    ["maxEntries", Number.NaN],
  ] as const)("refuses %s = %s with a typed error naming the option", (field, value) => {
    const parent = parentSession("P", ["C"]);
    const loadChild = vi.fn(() => childSession("C", "P"));
    let caught: unknown;
    try {
      buildPageData(parent, undefined, { loadChild, [field]: value });
    } catch (error) {
      caught = error;
    }
    expect(ChildOptionsError.isInstance(caught)).toBe(true);
    expect((caught as ChildOptionsError).field).toBe(field);
    expect((caught as Error).message).toContain(`withChildren.${field}`);
    expect(loadChild).not.toHaveBeenCalled();
  });

  it("embeds nothing at maxDepth 0 and notes why", () => {
    const data = buildPageData(parentSession("P", ["C"]), undefined, {
      loadChild: () => childSession("C", "P"),
      maxDepth: 0,
    });
    expect(data.orchestration.children["P-c0"]?.note).toMatch(/^Not embedded: more than 0 levels/);
    expect(data.orchestration.embedded).toEqual({});
  });
});
