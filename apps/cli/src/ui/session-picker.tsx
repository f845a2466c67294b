import type { SessionInfo } from "@arbor/session-store";
import { Box, Text, useInput } from "ink";
import { useEffect, useMemo, useRef, useState } from "react";
import { terminalSafe } from "../output/index.js";
import { shortIds } from "../short-ids.js";

/** Props of {@link SessionPicker}. */
export interface SessionPickerProps {
  sessions: readonly SessionInfo[];
  /** The session open now, marked `▶` (none when picking from the shell). */
  currentPath: string;
  onSelect: (path: string) => void;
  onCancel: () => void;
  /** The heading. Default "Sessions of this directory". */
  title?: string;
  /** Rows shown at once; the list scrolls. Default 15. */
  height?: number;
}

/** The sessions whose title, id or folder contains every word of `query` (any case). */
export function matchingSessions(
  sessions: readonly SessionInfo[],
  query: string,
): readonly SessionInfo[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return sessions;
  return sessions.filter((session) => {
    const text = `${session.title ?? ""} ${session.id} ${session.cwd}`.toLowerCase();
    return words.every((word) => text.includes(word));
  });
}

function formatDate(date: Date): string {
  return date.toISOString().slice(0, 16).replace("T", " ");
}

/**
 * Picks a session to resume: newest first, each with its short id, date, message count and
 * title; typing filters by title, id or folder (Backspace edits the search), ↑/↓ move,
 * Enter opens, Esc leaves.
 */
export function SessionPicker({
  sessions,
  currentPath,
  onSelect,
  onCancel,
  title = "Sessions of this directory",
  height = 15,
}: SessionPickerProps) {
  const ordered = useMemo(
    () => [...sessions].sort((a, b) => b.modified.getTime() - a.modified.getTime()),
    [sessions],
  );
  const short = useMemo(() => shortIds(ordered.map((s) => s.id)), [ordered]);
  // Keys can arrive faster than React re-renders: the search and cursor live in refs too.
  const state = useRef({ query: "", cursor: 0 });
  const [, repaint] = useState(0);
  const shown = matchingSessions(ordered, state.current.query);
  useInput((input, key) => {
    const current = state.current;
    const visible = matchingSessions(ordered, current.query);
    if (key.escape) return onCancel();
    if (key.return) {
      const session = visible[current.cursor];
      if (session) onSelect(session.path);
      return;
    }
    if (key.upArrow) current.cursor = Math.max(0, current.cursor - 1);
    else if (key.downArrow) current.cursor = Math.min(visible.length - 1, current.cursor + 1);
    else if (key.backspace || key.delete) {
      current.query = current.query.slice(0, -1);
      current.cursor = 0;
    } else if (input && !key.ctrl && !key.meta && !key.tab) {
      // Text and Enter in one read: the search, then the pick.
      const [typed = "", ...rest] = input.split(/\r\n?|\n/);
      current.query += typed;
      current.cursor = 0;
      if (rest.length > 0) {
        const session = matchingSessions(ordered, current.query)[0];
        if (session) return onSelect(session.path);
      }
    }
    repaint((n) => n + 1);
  });
  // The key hints appear once the keys reach this picker (see TreeView).
  const [ready, setReady] = useState(false);
  useEffect(() => setReady(true), []);
  const { query, cursor } = state.current;
  const first = Math.max(0, Math.min(cursor - Math.floor(height / 2), shown.length - height));
  const rows = shown.slice(first, first + height);
  const idWidth = Math.max(8, ...ordered.map((s) => (short.get(s.id) ?? s.id).length));
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1}>
      <Text bold>{title}</Text>
      <Text>
        search: {terminalSafe(query)}
        <Text inverse> </Text>
      </Text>
      {ordered.length === 0 ? <Text dimColor>no sessions yet</Text> : null}
      {ordered.length > 0 && shown.length === 0 ? <Text dimColor>no session matches</Text> : null}
      {rows.map((session, index) => (
        <Text key={session.path} inverse={first + index === cursor} wrap="truncate-end">
          {`${session.path === currentPath ? "▶" : " "} ${terminalSafe(short.get(session.id) ?? session.id).padEnd(idWidth)}  ${formatDate(session.modified)}  ${String(session.messageCount).padStart(3)} msgs  ${terminalSafe(session.title ?? "(untitled)")}`}
        </Text>
      ))}
      {ready ? (
        <Text dimColor>
          {shown.length > 0 ? `${cursor + 1}/${shown.length} · ` : ""}type to search · ↑↓ move ·
          Enter resume · Esc close
        </Text>
      ) : null}
    </Box>
  );
}
