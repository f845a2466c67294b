import type { TreeLine } from "../tree-lines.js";

/**
 * The filters of `/tree`, in the order Tab cycles them (as pi's tree selector):
 * `default` hides bookkeeping entries (extension state, model and thinking changes,
 * titles) but shows each child run of an agent file once (its outcome), `no-tools` also hides tool results, `user-only` shows the user's messages,
 * `labeled-only` the labelled entries, `all` everything.
 */
export const TREE_FILTERS = ["default", "no-tools", "user-only", "labeled-only", "all"] as const;
/** One of {@link TREE_FILTERS}. */
export type TreeFilter = (typeof TREE_FILTERS)[number];

/** Entry types that record settings or extension state rather than conversation. */
const BOOKKEEPING_TYPES: ReadonlySet<string> = new Set([
  "custom",
  "model_change",
  "thinking_level_change",
  "session_info",
  "leaf",
]);

/** Whether `filter` shows `line`. */
function shows(line: TreeLine, filter: TreeFilter): boolean {
  // A child run of an agent file shows once, at its newest record (its outcome), unless all is asked.
  if (line.child && filter !== "all" && filter !== "labeled-only") {
    return line.child.latest && filter !== "user-only";
  }
  switch (filter) {
    case "all":
      return true;
    case "labeled-only":
      return Boolean(line.label);
    case "user-only":
      return line.kind === "user";
    case "no-tools":
      return !BOOKKEEPING_TYPES.has(line.entryType) && line.kind !== "tool";
    default:
      return !BOOKKEEPING_TYPES.has(line.entryType);
  }
}

/** The filter after `filter` (Tab), wrapping around. */
export function nextTreeFilter(filter: TreeFilter): TreeFilter {
  return TREE_FILTERS[(TREE_FILTERS.indexOf(filter) + 1) % TREE_FILTERS.length] ?? "default";
}

/** The lines a query and a filter leave, in tree order. */
export function filterTreeLines(
  lines: readonly TreeLine[],
  query: string,
  filter: TreeFilter,
): TreeLine[] {
  const needle = query.toLowerCase();
  return lines.filter((line) => {
    if (!shows(line, filter)) return false;
    if (!needle) return true;
    return `${line.id} ${line.kind} ${line.label ?? ""} ${line.text}`
      .toLowerCase()
      .includes(needle);
  });
}
