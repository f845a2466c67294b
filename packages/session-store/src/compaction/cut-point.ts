import type { AgentMessage, SessionEntry } from "../format/entries.js";
import { toContextMessage } from "../tree/session-context.js";
import { estimateEntryTokens } from "./token-estimate.js";

/** Where a compaction cuts a path: what is summarized and what is kept verbatim. */
export interface CutPoint {
  /** Index in the path of the first entry kept verbatim after the summary. */
  firstKeptIndex: number;
  /**
   * When the cut falls inside a turn: the index of the user message that opened it. The
   * entries from there up to the cut (the turn's prefix) are summarized on their own, so
   * the kept part of the turn is not read without its beginning. -1 otherwise.
   */
  turnStartIndex: number;
  /** Whether the cut falls inside a turn (see `turnStartIndex`). */
  splitTurn: boolean;
}

/** The part of a path {@link findCutPoint} looks at, and how much it keeps. */
export interface CutPointOptions {
  /** Index of the first entry that may be summarized. Default 0. */
  startIndex?: number;
  /** Index after the last entry considered. Default: the path's length. */
  endIndex?: number;
  /** Estimated tokens that stay verbatim at least (when the range holds that many). */
  keepRecentTokens: number;
}

function toolCallIds(message: AgentMessage): string[] {
  if (message.role !== "assistant" || message.stopReason === "aborted") return [];
  if (!Array.isArray(message.content)) return [];
  return message.content.flatMap((block) =>
    block.type === "toolCall" && typeof block.id === "string" ? [block.id] : [],
  );
}

/**
 * The indexes in `[startIndex, endIndex)` where a cut may fall: entries that stand for a
 * context message other than a tool result, and that no tool call before them still waits
 * on (its result stored at or after them). A cut there never separates a call from its
 * result.
 */
export function findCutCandidates(
  path: readonly SessionEntry[],
  startIndex = 0,
  endIndex = path.length,
): number[] {
  const resultAt = new Map<string, number>();
  for (let i = startIndex; i < endIndex; i++) {
    const message = toContextMessage(path[i] as SessionEntry);
    if (message?.role === "toolResult") resultAt.set(String(message.toolCallId ?? ""), i);
  }
  const candidates: number[] = [];
  const open = new Set<string>();
  for (let i = startIndex; i < endIndex; i++) {
    const message = toContextMessage(path[i] as SessionEntry);
    if (!message) continue;
    if (message.role === "toolResult") {
      open.delete(String(message.toolCallId ?? ""));
      continue;
    }
    let waiting = false;
    for (const id of open) if ((resultAt.get(id) ?? -1) >= i) waiting = true;
    if (!waiting) candidates.push(i);
    for (const id of toolCallIds(message)) open.add(id);
  }
  return candidates;
}

const isUserMessage = (entry: SessionEntry | undefined): boolean =>
  entry?.type === "message" && toContextMessage(entry)?.role === "user";

/**
 * Finds where to cut a path for a compaction: walking back from its end, it keeps at
 * least `keepRecentTokens` (estimated) verbatim and cuts at the nearest candidate (see
 * {@link findCutCandidates}) at or before the entry where that budget was reached. When the
 * range holds less than the budget, or no candidate, nothing is cut: `firstKeptIndex` is
 * `startIndex`.
 */
export function findCutPoint(path: readonly SessionEntry[], options: CutPointOptions): CutPoint {
  const startIndex = options.startIndex ?? 0;
  const endIndex = options.endIndex ?? path.length;
  const keepAll: CutPoint = { firstKeptIndex: startIndex, turnStartIndex: -1, splitTurn: false };
  const candidates = findCutCandidates(path, startIndex, endIndex);
  let kept = 0;
  let firstKeptIndex: number | undefined;
  for (let i = endIndex - 1; i >= startIndex; i--) {
    kept += estimateEntryTokens(path[i] as SessionEntry);
    if (kept < options.keepRecentTokens) continue;
    firstKeptIndex = candidates.findLast((candidate) => candidate <= i);
    break;
  }
  if (firstKeptIndex === undefined || firstKeptIndex <= startIndex) return keepAll;
  if (isUserMessage(path[firstKeptIndex])) {
    return { firstKeptIndex, turnStartIndex: -1, splitTurn: false };
  }
  for (let i = firstKeptIndex - 1; i >= startIndex; i--) {
    if (isUserMessage(path[i])) return { firstKeptIndex, turnStartIndex: i, splitTurn: true };
  }
  return { firstKeptIndex, turnStartIndex: -1, splitTurn: false };
}
