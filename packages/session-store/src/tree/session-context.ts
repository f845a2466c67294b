import type {
  AgentMessage,
  BranchSummaryEntry,
  CompactionEntry,
  CustomMessageEntry,
  MessageEntry,
  ModelChangeEntry,
  SessionEntry,
  ThinkingLevelChangeEntry,
} from "../format/entries.js";

/** The model that served (or will serve) a path, as recorded in the session. */
export interface ModelRef {
  provider: string;
  modelId: string;
}

/** What a model is sent for a path: messages, thinking level and model, with pi's rules. */
export interface SessionContext {
  messages: AgentMessage[];
  thinkingLevel: string;
  model: ModelRef | null;
}

/**
 * The message a compaction contributes: a summary of the conversation before it. Its role
 * tells the turn runner to frame it as earlier conversation, never as a user request.
 */
export interface CompactionSummaryMessage extends AgentMessage {
  role: "compactionSummary";
  summary: string;
  tokensBefore: number;
  timestamp: number;
}

/**
 * Builds the context for a path (root first), with pi's semantics: the latest compaction on
 * the path puts its summary first, then the entries from its `firstKeptEntryId` up to it,
 * then the entries after it; custom messages and non-empty branch summaries become
 * messages; thinking level and model come from the latest change on the whole path.
 */
export function buildContextFromPath(path: readonly SessionEntry[]): SessionContext {
  let thinkingLevel = "off";
  let model: ModelRef | null = null;
  let compactionIndex = -1;
  path.forEach((entry, index) => {
    if (entry.type === "thinking_level_change") {
      thinkingLevel = (entry as ThinkingLevelChangeEntry).thinkingLevel;
    } else if (entry.type === "model_change") {
      const change = entry as ModelChangeEntry;
      model = { provider: change.provider, modelId: change.modelId };
    } else if (entry.type === "message") {
      const message = (entry as MessageEntry).message;
      if (message.role === "assistant") {
        model = { provider: message.provider as string, modelId: message.model as string };
      }
    } else if (entry.type === "compaction") {
      compactionIndex = index;
    }
  });

  const messages: AgentMessage[] = [];
  const push = (entry: SessionEntry): void => {
    const message = toContextMessage(entry);
    if (message) messages.push(message);
  };
  if (compactionIndex === -1) {
    for (const entry of path) push(entry);
  } else {
    const compaction = path[compactionIndex] as CompactionEntry;
    messages.push(compactionSummaryMessage(compaction));
    const firstKept = path.findIndex(
      (entry, index) => index < compactionIndex && entry.id === compaction.firstKeptEntryId,
    );
    if (firstKept !== -1)
      for (let i = firstKept; i < compactionIndex; i++) push(path[i] as SessionEntry);
    for (let i = compactionIndex + 1; i < path.length; i++) push(path[i] as SessionEntry);
  }
  return { messages, thinkingLevel, model };
}

/** The summary message a compaction entry stands for in a context. */
export function compactionSummaryMessage(entry: CompactionEntry): CompactionSummaryMessage {
  return {
    role: "compactionSummary",
    summary: entry.summary,
    tokensBefore: entry.tokensBefore,
    timestamp: Date.parse(entry.timestamp),
  };
}

/** The context message an entry stands for, or undefined for entries that are not messages. */
export function toContextMessage(entry: SessionEntry): AgentMessage | undefined {
  switch (entry.type) {
    case "message":
      return (entry as MessageEntry).message;
    case "custom_message": {
      const custom = entry as CustomMessageEntry;
      return {
        role: "custom",
        customType: custom.customType,
        content: custom.content,
        display: custom.display,
        details: custom.details,
        timestamp: Date.parse(custom.timestamp),
      };
    }
    case "branch_summary": {
      const summary = entry as BranchSummaryEntry;
      if (!summary.summary) return undefined;
      return {
        role: "branchSummary",
        summary: summary.summary,
        fromId: summary.fromId,
        timestamp: Date.parse(summary.timestamp),
      };
    }
    default:
      return undefined;
  }
}
