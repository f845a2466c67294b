import { Box, Text, useInput } from "ink";
import { useReducer, useRef } from "react";
import { terminalSafe } from "../output/index.js";
import type { ChildSessionSnapshot } from "./child-session-snapshot.js";
import { TranscriptView } from "./transcript-view.js";

/** One child session opened from `/tree` (or from the child above it). */
export interface ChildFrame {
  sessionId: string;
  /** Undefined while it is being read. */
  snapshot: ChildSessionSnapshot | undefined;
}

/** Props of {@link ChildSessionView}. */
export interface ChildSessionViewProps {
  /** The child sessions opened, outermost first; the last one is shown. */
  frames: readonly ChildFrame[];
  /** Opens one of the shown session's own children. */
  onOpen: (sessionId: string) => void;
  /** Goes back to the session it was opened from (Esc). */
  onBack: () => void;
  /** Transcript items shown at once. */
  limit?: number;
}

/**
 * A child session of an agent file's run, read-only: where it sits in the run, its
 * transcript, and its own child runs, which ↑/↓ and Enter open in turn. Esc goes back one
 * level (to the parent child session, or to `/tree`).
 */
export function ChildSessionView({ frames, onOpen, onBack, limit = 12 }: ChildSessionViewProps) {
  const frame = frames.at(-1);
  const snapshot = frame?.snapshot;
  const children =
    snapshot?.status === "open" ? snapshot.items.filter((item) => item.kind === "child") : [];
  // Kept in a ref so keys arriving faster than re-renders act on the latest cursor.
  const cursor = useRef(0);
  const [, rerender] = useReducer((count: number) => count + 1, 0);
  const at = Math.min(cursor.current, Math.max(0, children.length - 1));

  useInput((_input, key) => {
    if (key.escape) return onBack();
    if (key.upArrow) cursor.current = Math.max(0, at - 1);
    else if (key.downArrow) cursor.current = Math.min(children.length - 1, at + 1);
    else if (key.return) {
      const child = children[at];
      if (child?.kind === "child") {
        cursor.current = 0;
        onOpen(child.childSessionId);
      }
      return;
    } else return;
    rerender();
  });

  const trail = frames
    .map((each) =>
      each.snapshot?.status === "open" && each.snapshot.agentPath
        ? each.snapshot.agentPath
        : each.sessionId,
    )
    .join(" › ");
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1}>
      <Text bold>
        Child session <Text dimColor>(read-only)</Text> {terminalSafe(trail)}
      </Text>
      {snapshot === undefined ? <Text dimColor>reading…</Text> : null}
      {snapshot?.status === "unavailable" ? (
        <Text color="red">
          {terminalSafe(
            `The child session ${snapshot.sessionId} cannot be shown: ${snapshot.reason}.`,
          )}
        </Text>
      ) : null}
      {snapshot?.status === "open" ? (
        <>
          <Text dimColor>
            {terminalSafe(
              `${snapshot.role ?? "child"} · ${snapshot.sessionId} · ${snapshot.location}`,
            )}
          </Text>
          <TranscriptView items={snapshot.items} limit={limit} />
        </>
      ) : null}
      {children.length > 0 ? (
        <Box flexDirection="column" marginTop={1}>
          <Text>Its child sessions:</Text>
          {children.map((child, index) =>
            child.kind === "child" ? (
              <Text key={child.id} inverse={index === at} wrap="truncate-end">
                {terminalSafe(`${child.agentPath} (${child.role}, ${child.outcome})`)}
              </Text>
            ) : null,
          )}
        </Box>
      ) : null}
      <Text dimColor>
        {`Esc back${frames.length > 1 ? " to the parent child session" : " to /tree"}${children.length > 0 ? " · ↑↓ choose · Enter open it" : ""}`}
      </Text>
    </Box>
  );
}
