import { describe, expect, it } from "vitest";
import type { TreeLine } from "../tree-lines.js";
import { filterTreeLines, nextTreeFilter, TREE_FILTERS, type TreeFilter } from "./tree-filters.js";

const line = (id: string, entryType: string, kind: string, label?: string): TreeLine => ({
  id,
  depth: 0,
  prefix: "",
  entryType,
  kind,
  text: `${kind} text`,
  label,
  active: true,
  leaf: false,
});

const LINES: TreeLine[] = [
  line("u1", "message", "user", "start"),
  line("a1", "message", "assistant"),
  line("t1", "message", "tool"),
  line("m1", "model_change", "model"),
  line("k1", "thinking_level_change", "thinking"),
  line("s1", "session_info", "title"),
  line("c1", "custom", "custom", "state"),
  line("cm", "custom_message", "custom"),
  line("b1", "branch_summary", "summary"),
  line("x1", "compaction", "compaction"),
  line("u2", "message", "user"),
];

const ids = (filter: (typeof TREE_FILTERS)[number], query = "") =>
  filterTreeLines(LINES, query, filter).map((shown) => shown.id);

describe("tree filters", () => {
  it("shows what each of pi's five filters shows", () => {
    expect(ids("all")).toEqual(LINES.map((shown) => shown.id));
    expect(ids("default")).toEqual(["u1", "a1", "t1", "cm", "b1", "x1", "u2"]);
    expect(ids("no-tools")).toEqual(["u1", "a1", "cm", "b1", "x1", "u2"]);
    expect(ids("user-only")).toEqual(["u1", "u2"]);
    expect(ids("labeled-only")).toEqual(["u1", "c1"]);
  });

  it("combines a filter with the search text", () => {
    expect(ids("default", "USER")).toEqual(["u1", "u2"]);
    expect(ids("labeled-only", "state")).toEqual(["c1"]);
    expect(ids("user-only", "assistant")).toEqual([]);
  });

  it("cycles through the five filters with Tab and wraps around", () => {
    const seen: TreeFilter[] = [TREE_FILTERS[0]];
    for (let step = 0; step < 5; step++) seen.push(nextTreeFilter(seen.at(-1) ?? "default"));
    expect(seen).toEqual(["default", "no-tools", "user-only", "labeled-only", "all", "default"]);
  });
});
