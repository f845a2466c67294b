import type { AgentMessage, SessionEntry } from "../format/entries.js";
import { compactionSummaryMessage, toContextMessage } from "../tree/session-context.js";
import {
  collectFileOperations,
  type FileOperations,
  type FileToolNames,
} from "./file-operations.js";
import { estimateMessageTokens } from "./token-estimate.js";

/** The part of a branch being left that a branch summary covers. */
export interface AbandonedBranch {
  /** The deepest entry both paths share, or null when they share none. */
  commonAncestorId: string | null;
  /** Every entry after the common ancestor on the path being left, root first. */
  entries: SessionEntry[];
  /** The messages that fit in the budget, newest kept first, in conversation order. */
  messages: AgentMessage[];
  /** Messages of the branch left out because the budget was spent. */
  omittedMessages: number;
  /** Estimated tokens of `messages`. */
  tokens: number;
  /** Files read and modified on the branch, including those its summaries carried. */
  fileOperations: FileOperations;
}

/** The message an entry contributes to a branch summary: compactions count as their summary. */
function summaryInput(entry: SessionEntry): AgentMessage | undefined {
  if (entry.type === "compaction") {
    return compactionSummaryMessage(entry as Parameters<typeof compactionSummaryMessage>[0]);
  }
  return toContextMessage(entry);
}

/**
 * Collects the branch being left when the leaf moves from `oldPath`'s end to `newPath`'s
 * end (both root first): the entries after their common ancestor, and, walking back from
 * the old leaf, as many of their messages as fit in `maxTokens` (the newest one always).
 */
export function collectAbandonedBranch(
  oldPath: readonly SessionEntry[],
  newPath: readonly SessionEntry[],
  options: { maxTokens: number; toolNames?: FileToolNames },
): AbandonedBranch {
  let shared = 0;
  while (
    shared < oldPath.length &&
    shared < newPath.length &&
    (oldPath[shared] as SessionEntry).id === (newPath[shared] as SessionEntry).id
  ) {
    shared++;
  }
  const entries = oldPath.slice(shared);
  const newestFirst: AgentMessage[] = [];
  let tokens = 0;
  let total = 0;
  let full = false;
  const carried: unknown[] = [];
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i] as SessionEntry;
    const message = summaryInput(entry);
    if (!message) continue;
    total++;
    if (entry.type === "compaction" || entry.type === "branch_summary") {
      carried.push((entry as { details?: unknown }).details);
    }
    if (full) continue;
    const cost = estimateMessageTokens(message);
    if (newestFirst.length > 0 && tokens + cost > options.maxTokens) {
      full = true;
      continue;
    }
    newestFirst.push(message);
    tokens += cost;
  }
  const messages = newestFirst.reverse();
  return {
    commonAncestorId: shared > 0 ? (oldPath[shared - 1] as SessionEntry).id : null,
    entries,
    messages,
    omittedMessages: total - messages.length,
    tokens,
    fileOperations: collectFileOperations(messages, {
      carried,
      ...(options.toolNames ? { toolNames: options.toolNames } : {}),
    }),
  };
}
