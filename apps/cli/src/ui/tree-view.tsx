import { Box, Text, useInput } from "ink";
import { useEffect, useReducer, useRef, useState } from "react";
import { terminalSafe } from "../output/index.js";
import type { TreeLine } from "../tree-lines.js";
import { filterTreeLines, nextTreeFilter, type TreeFilter } from "./tree-filters.js";

export { filterTreeLines, type TreeFilter } from "./tree-filters.js";

interface TreeNavigation {
  query: string;
  filter: TreeFilter;
  cursor: number;
  /** The entry picked with Enter, waiting for "go" or "go and summarize". */
  chosen: TreeLine | undefined;
  /** The label being typed for an entry (Ctrl+L), until Enter saves it or Esc drops it. */
  labeling: { line: TreeLine; text: string } | undefined;
}

/**
 * Where the cursor starts among the lines the default filter shows: on the entry asked
 * for, else on the leaf, else (a hidden leaf, such as a bookkeeping entry) on the newest
 * shown entry of the active path before it; at the top when there is no leaf.
 */
function initialCursor(lines: readonly TreeLine[], selectedId: string | undefined): number {
  const shown = filterTreeLines(lines, "", "default");
  const asked = selectedId === undefined ? -1 : shown.findIndex((line) => line.id === selectedId);
  if (asked >= 0) return asked;
  const leaf = lines.findIndex((line) => line.leaf);
  if (leaf < 0) return 0;
  const upToLeaf = new Set(lines.slice(0, leaf + 1).filter((line) => line.active));
  return Math.max(
    0,
    shown.findLastIndex((line) => upToLeaf.has(line)),
  );
}

/** Props of {@link TreeView}. */
export interface TreeViewProps {
  lines: readonly TreeLine[];
  onSelect: (entryId: string, summarize: boolean) => void;
  onCancel: () => void;
  /** Sets the label of an entry; an empty text clears it. */
  onLabel?: (entryId: string, label: string) => void;
  /** Rows of entries shown at once. */
  height?: number;
  /**
   * Opens the child session of a child-run line (an agent file's advisor, destination,
   * handoff or sub-agent): Enter on such a line calls it instead of choosing the entry.
   */
  onOpenChild?: (sessionId: string, entryId: string) => void;
  /** Child sessions whose session cannot be opened (deleted); their lines say so. */
  missingChildren?: ReadonlySet<string>;
  /** The entry selected when the view opens (default: the leaf). */
  initialSelectedId?: string | undefined;
  /**
   * Brings the files back with the move: `f` on a chosen entry goes there with its files,
   * `c` brings its files back and leaves the conversation where it is.
   */
  onRewind?: (entryId: string, to: "code" | "both") => void;
}

/**
 * The whole session tree: ↑/↓ move, typing searches, Tab cycles the filter (default,
 * no-tools, user-only, labeled-only, all), Ctrl+L edits the selected entry's label (Enter
 * saves, empty clears, Esc drops), Enter chooses an entry (then Enter again to go, `s` to go
 * and summarize the branch left), Esc leaves. `▶` marks the leaf, `•` the active path.
 */
export function TreeView({
  lines,
  onSelect,
  onCancel,
  onLabel,
  height = 14,
  onOpenChild,
  missingChildren,
  initialSelectedId,
  onRewind,
}: TreeViewProps) {
  // Kept in a ref so keys arriving faster than re-renders all act on the latest state.
  const nav = useRef<TreeNavigation>({
    query: "",
    filter: "default",
    cursor: initialCursor(lines, initialSelectedId),
    chosen: undefined,
    labeling: undefined,
  });
  const [, rerender] = useReducer((count: number) => count + 1, 0);
  const set = (change: Partial<TreeNavigation>) => {
    nav.current = { ...nav.current, ...change };
    rerender();
  };
  const visible = () => filterTreeLines(lines, nav.current.query, nav.current.filter);

  useInput((input, key) => {
    const { chosen, cursor, filter, query, labeling } = nav.current;
    const shownNow = visible();
    const at = Math.min(cursor, Math.max(0, shownNow.length - 1));
    if (labeling) {
      if (key.escape) return set({ labeling: undefined });
      if (key.return) {
        onLabel?.(labeling.line.id, labeling.text.trim());
        return set({ labeling: undefined });
      }
      if (key.backspace || key.delete) {
        return set({ labeling: { ...labeling, text: labeling.text.slice(0, -1) } });
      }
      if (input && !key.ctrl && !key.meta) {
        // Text and Enter in one read (a fast typist, a paste): the text, then the save.
        const [typed = "", ...rest] = input.split(/\r\n?|\n/);
        const text = labeling.text + typed;
        if (rest.length > 0) {
          onLabel?.(labeling.line.id, text.trim());
          return set({ labeling: undefined });
        }
        set({ labeling: { ...labeling, text } });
      }
      return;
    }
    if (chosen) {
      if (key.escape) set({ chosen: undefined });
      else if (key.return) onSelect(chosen.id, false);
      else if (input === "s") onSelect(chosen.id, true);
      else if (input === "f" && onRewind) onRewind(chosen.id, "both");
      else if (input === "c" && onRewind) onRewind(chosen.id, "code");
      return;
    }
    if (key.escape) return onCancel();
    if (key.upArrow) return set({ cursor: Math.max(0, at - 1) });
    if (key.downArrow) return set({ cursor: Math.min(shownNow.length - 1, at + 1) });
    if (key.tab) return set({ filter: nextTreeFilter(filter), cursor: 0 });
    if (key.ctrl && input === "l" && onLabel) {
      const line = shownNow[at];
      if (line) set({ labeling: { line, text: line.label ?? "" } });
      return;
    }
    // Enter on a line: a child run opens its session, any other line is chosen.
    const enter = (line: TreeLine | undefined) => {
      if (line?.child && onOpenChild) return onOpenChild(line.child.sessionId, line.id);
      if (line) set({ chosen: line });
    };
    if (key.return) return enter(shownNow[at]);
    if (key.backspace || key.delete) return set({ query: query.slice(0, -1), cursor: 0 });
    if (input && !key.ctrl && !key.meta) {
      // Search text and Enter in one read (a fast typist, a paste): the search, then Enter.
      const [typed = "", ...rest] = input.split(/\r\n?|\n/);
      set({ query: query + typed, cursor: 0 });
      if (rest.length > 0) enter(filterTreeLines(lines, query + typed, filter)[0]);
    }
  });
  // The key hints appear once the keys reach this view (its input handler is attached in
  // an effect): what waits for them (a user, a test) never types into the prompt behind.
  const [ready, setReady] = useState(false);
  useEffect(() => setReady(true), []);

  const { query, filter, chosen, labeling } = nav.current;
  const shown = visible();
  const index = Math.min(nav.current.cursor, Math.max(0, shown.length - 1));
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
      {start > 0 ? <Text dimColor>{`  ↑ ${start} more`}</Text> : null}
      {window.map((line) => {
        const selected = line === shown[index];
        const marker = line.leaf ? "▶" : line.active ? "•" : " ";
        const missing =
          line.child && missingChildren?.has(line.child.sessionId) ? " [session file missing]" : "";
        return (
          <Text
            key={line.id}
            inverse={selected}
            color={line.active ? "green" : undefined}
            wrap="truncate-end"
          >
            {`${marker} ${line.prefix}${line.kind}${line.label ? ` [${line.label}]` : ""}${missing}: ${line.text}`}
          </Text>
        );
      })}
      {start + window.length < shown.length ? (
        <Text dimColor>{`  ↓ ${shown.length - start - window.length} more`}</Text>
      ) : null}
      {shown.length === 0 ? <Text dimColor>no entry matches</Text> : null}
      {labeling ? (
        <Text>
          {`label of ${terminalSafe(labeling.line.id)}: `}
          <Text color="cyan">{terminalSafe(labeling.text)}</Text>
          <Text inverse> </Text>
        </Text>
      ) : null}
      {ready ? (
        <Text dimColor>
          {labeling
            ? "Enter: save the label (empty clears it) · Esc: back"
            : chosen
              ? `Go to ${terminalSafe(chosen.id)}? Enter: go · s: go and summarize the branch left${onRewind ? " · f: go and bring the files back · c: the files only" : ""} · Esc: back`
              : `${shown.length > 0 ? `${index + 1}/${shown.length} · ` : ""}↑↓ move · type to search · Tab filter (${filter}) · ${onLabel ? "Ctrl+L label · " : ""}${shown[index]?.child && onOpenChild ? "Enter open the child session" : "Enter choose"} · Esc close`}
        </Text>
      ) : null}
    </Box>
  );
}
