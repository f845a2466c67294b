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
 * A path from a root to a leaf, read lazily: the type, id and (where known without parsing)
 * message role of each entry are cheap; `entry(i)` may parse.
 */
export interface ContextPath {
  readonly length: number;
  type(index: number): string;
  id(index: number): string;
  /** A message's role if it is known without parsing the entry. */
  role(index: number): string | undefined;
  entry(index: number): SessionEntry;
}

/**
 * Builds the context for a path (root first), with pi's semantics: the latest compaction on
 * the path puts its summary first, then the entries from its `firstKeptEntryId` up to it,
 * then the entries after it; custom messages and non-empty branch summaries become
 * messages; thinking level and model come from the latest change on the whole path.
 */
export function buildContextFromPath(path: readonly SessionEntry[]): SessionContext {
  return buildContext({
    length: path.length,
    type: (i) => (path[i] as SessionEntry).type,
    id: (i) => (path[i] as SessionEntry).id,
    role: (i) =>
      (path[i] as SessionEntry).type === "message"
        ? (path[i] as MessageEntry).message.role
        : undefined,
    entry: (i) => path[i] as SessionEntry,
  });
}

/**
 * {@link buildContextFromPath} over a lazily read path. It walks back from the leaf and
 * parses only what the context holds: the entries after the latest compaction's first
 * kept entry, and the latest model and thinking-level changes.
 */
export function buildContext(path: ContextPath): SessionContext {
  let thinkingLevel: string | undefined;
  let model: ModelRef | null | undefined;
  let compactionIndex = -1;
  for (let i = path.length - 1; i >= 0; i--) {
    const type = path.type(i);
    if (type === "compaction" && compactionIndex === -1) compactionIndex = i;
    else if (type === "thinking_level_change" && thinkingLevel === undefined) {
      thinkingLevel = (path.entry(i) as ThinkingLevelChangeEntry).thinkingLevel;
    } else if (type === "model_change" && model === undefined) {
      const change = path.entry(i) as ModelChangeEntry;
      model = { provider: change.provider, modelId: change.modelId };
    } else if (type === "message" && model === undefined) {
      // A broken line reads back as an entry of type "unreadable", without a message.
      const role = path.role(i) ?? messageOf(path.entry(i))?.role;
      const message = role === "assistant" ? messageOf(path.entry(i)) : undefined;
      if (message)
        model = { provider: message.provider as string, modelId: message.model as string };
    }
    if (compactionIndex !== -1 && thinkingLevel !== undefined && model !== undefined) break;
  }

  const messages: AgentMessage[] = [];
  const pushRange = (from: number, to: number): void => {
    for (let i = from; i < to; i++) {
      const message = toContextMessage(path.entry(i));
      if (message) messages.push(message);
    }
  };
  if (compactionIndex === -1) {
    pushRange(0, path.length);
  } else {
    const compaction = path.entry(compactionIndex) as CompactionEntry;
    messages.push(compactionSummaryMessage(compaction));
    let firstKept = -1;
    for (let i = compactionIndex - 1; i >= 0; i--) {
      if (path.id(i) === compaction.firstKeptEntryId) {
        firstKept = i;
        break;
      }
    }
    if (firstKept !== -1) pushRange(firstKept, compactionIndex);
    pushRange(compactionIndex + 1, path.length);
  }
  return { messages, thinkingLevel: thinkingLevel ?? "off", model: model ?? null };
}

function messageOf(entry: SessionEntry): AgentMessage | undefined {
  return entry.type === "message" ? (entry as MessageEntry).message : undefined;
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
