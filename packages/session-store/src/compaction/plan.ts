import type { AgentMessage, CompactionEntry, SessionEntry } from "../format/entries.js";
import { toContextMessage } from "../tree/session-context.js";
import { findCutPoint } from "./cut-point.js";
import {
  collectFileOperations,
  type FileOperations,
  type FileToolNames,
} from "./file-operations.js";
import { estimateContextTokens } from "./token-estimate.js";

/** What a compaction of a path will summarize and keep, worked out before any model call. */
export interface CompactionPlan {
  /** The first entry kept verbatim: the new compaction's `firstKeptEntryId`. */
  firstKeptEntryId: string;
  /** Messages the summary replaces (before the turn that is cut, when a turn is cut). */
  messagesToSummarize: AgentMessage[];
  /** When the cut falls inside a turn: that turn's messages before the cut. */
  turnPrefixMessages: AgentMessage[];
  splitTurn: boolean;
  /** Estimated tokens of the context before compaction. */
  tokensBefore: number;
  /** The summary of the latest earlier compaction on the path, to be updated. */
  previousSummary?: string;
  /** Files read and modified, carried forward from the earlier compaction too. */
  fileOperations: FileOperations;
}

/**
 * Works out a compaction of a path (root first, ending at the leaf), the way pi does: the
 * range starts at the latest compaction's first kept entry (its summary is passed on as
 * `previousSummary`), at least `keepRecentTokens` stay verbatim, and a cut inside a turn
 * summarizes the turn's prefix separately.
 * @returns undefined when there is nothing to summarize (the leaf is a compaction, or
 * everything fits in `keepRecentTokens`)
 */
export function planCompaction(
  path: readonly SessionEntry[],
  options: { keepRecentTokens: number; toolNames?: FileToolNames },
): CompactionPlan | undefined {
  if (path.length === 0 || path.at(-1)?.type === "compaction") return undefined;
  let previous: CompactionEntry | undefined;
  let startIndex = 0;
  for (let i = path.length - 1; i >= 0; i--) {
    const entry = path[i] as SessionEntry;
    if (entry.type !== "compaction") continue;
    previous = entry as CompactionEntry;
    const firstKept = path.findIndex((e) => e.id === previous?.firstKeptEntryId);
    startIndex = firstKept >= 0 && firstKept < i ? firstKept : i + 1;
    break;
  }
  const cut = findCutPoint(path, { startIndex, keepRecentTokens: options.keepRecentTokens });
  const historyEnd = cut.splitTurn ? cut.turnStartIndex : cut.firstKeptIndex;
  const messagesIn = (from: number, to: number): AgentMessage[] => {
    const messages: AgentMessage[] = [];
    for (let i = from; i < to; i++) {
      const message = toContextMessage(path[i] as SessionEntry);
      if (message) messages.push(message);
    }
    return messages;
  };
  const messagesToSummarize = messagesIn(startIndex, historyEnd);
  const turnPrefixMessages = cut.splitTurn
    ? messagesIn(cut.turnStartIndex, cut.firstKeptIndex)
    : [];
  if (messagesToSummarize.length === 0 && turnPrefixMessages.length === 0) return undefined;
  const firstKept = path[cut.firstKeptIndex] as SessionEntry;
  return {
    firstKeptEntryId: firstKept.id,
    messagesToSummarize,
    turnPrefixMessages,
    splitTurn: cut.splitTurn,
    tokensBefore: estimateContextTokens(path),
    ...(previous ? { previousSummary: previous.summary } : {}),
    fileOperations: collectFileOperations([...messagesToSummarize, ...turnPrefixMessages], {
      carried: previous ? [previous.details] : [],
      ...(options.toolNames ? { toolNames: options.toolNames } : {}),
    }),
  };
}
