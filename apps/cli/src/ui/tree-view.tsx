import { Box, Text, useInput } from "ink";
import { useMemo, useState } from "react";
import type { TreeLine } from "../tree-lines.js";

/** Which entries the tree shows. */
export type TreeFilter = "all" | "messages" | "labeled";
const FILTERS: readonly TreeFilter[] = ["all", "messages", "labeled"];

/** The lines a query and a filter leave, in tree order. */
export function filterTreeLines(
  lines: readonly TreeLine[],
  query: string,
  filter: TreeFilter,
): TreeLine[] {
  const needle = query.toLowerCase();
  return lines.filter((line) => {
    if (filter === "messages" && line.kind !== "user" && line.kind !== "assistant") return false;
    if (filter === "labeled" && !line.label) return false;
    if (!needle) return true;
    return `${line.id} ${line.kind} ${line.label ?? ""} ${line.text}`
      .toLowerCase()
      .includes(needle);
  });
}

/** Props of {@link TreeView}. */
export interface TreeViewProps {
  lines: readonly TreeLine[];
  onSelect: (entryId: string, summarize: boolean) => void;
  onCancel: () => void;
  /** Rows of entries shown at once. */
  height?: number;
}

/**
 * The whole session tree: ↑/↓ move, typing searches, Tab cycles the filter (all, messages,
 * labeled), Enter chooses an entry (then Enter again to go, `s` to go and summarize the
 * branch left), Esc leaves. `▶` marks the leaf, `•` the active path.
 */
export function TreeView({ lines, onSelect, onCancel, height = 14 }: TreeViewProps) {
  const [query, setQuery] = useState("");
  const [filter, setFilter] = useState<TreeFilter>("all");
  const shown = useMemo(() => filterTreeLines(lines, query, filter), [lines, query, filter]);
  const [cursor, setCursor] = useState(() =>
    Math.max(
      0,
      lines.findIndex((line) => line.leaf),
    ),
  );
  const [chosen, setChosen] = useState<TreeLine | undefined>(undefined);
  const index = Math.min(cursor, Math.max(0, shown.length - 1));

  useInput((input, key) => {
    if (chosen) {
      if (key.escape) setChosen(undefined);
      else if (key.return) onSelect(chosen.id, false);
      else if (input === "s") onSelect(chosen.id, true);
      return;
    }
    if (key.escape) return onCancel();
    if (key.upArrow) return setCursor(Math.max(0, index - 1));
    if (key.downArrow) return setCursor(Math.min(shown.length - 1, index + 1));
    if (key.tab) {
      setFilter((current) => FILTERS[(FILTERS.indexOf(current) + 1) % FILTERS.length] ?? "all");
      return setCursor(0);
    }
    if (key.return) {
      const line = shown[index];
      if (line) setChosen(line);
      return;
    }
    if (key.backspace || key.delete) {
      setQuery((current) => current.slice(0, -1));
      return setCursor(0);
    }
    if (input && !key.ctrl && !key.meta) {
      setQuery((current) => current + input);
      setCursor(0);
    }
  });

  const start = Math.max(0, Math.min(index - Math.floor(height / 2), shown.length - height));
  const window = shown.slice(start, start + height);
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1}>
      <Text bold>
        Session tree{" "}
        <Text dimColor>{`(${shown.length}/${lines.length} entries, filter: ${filter})`}</Text>
      </Text>
      <Text>
        search: <Text color="cyan">{query}</Text>
        <Text inverse> </Text>
      </Text>
      {window.map((line) => {
        const selected = line === shown[index];
        const marker = line.leaf ? "▶" : line.active ? "•" : " ";
        return (
          <Text
            key={line.id}
            inverse={selected}
            color={line.active ? "green" : undefined}
            wrap="truncate-end"
          >
            {`${marker} ${"  ".repeat(line.depth)}${line.kind}${line.label ? ` [${line.label}]` : ""}: ${line.text}`}
          </Text>
        );
      })}
      {shown.length === 0 ? <Text dimColor>no entry matches</Text> : null}
      <Text dimColor>
        {chosen
          ? `Go to ${chosen.id}? Enter: go · s: go and summarize the branch left · Esc: back`
          : "↑↓ move · type to search · Tab filter · Enter choose · Esc close"}
      </Text>
    </Box>
  );
}
