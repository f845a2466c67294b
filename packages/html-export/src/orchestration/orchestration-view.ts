/** A child-session entry as the page shows it: a card linking to the child. */
export interface ChildCard {
  childSessionId: string;
  role: string;
  agent: string;
  agentPath: string;
  outcome: string;
  /** Why it failed, was aborted or interrupted. */
  message?: string;
  /** The child's own tokens (input + output + cache), when recorded. */
  tokens?: number;
  /** The child's own cost, when recorded. */
  cost?: number;
  /** The child's export file in the same folder ({@link childExportFileName}). */
  fileName: string;
  /** The entry id where the child's tree starts on this page, when it is embedded. */
  target?: string;
  /** The leaf the page opens to show `target`: the child session's own leaf. */
  targetLeaf?: string;
  /** Why the child is not embedded here (missing, a cycle, too deep, too large). */
  note?: string;
}

/** An ancestry entry (a child session's first entry) as the page shows it: its parent. */
export interface AncestryCard {
  parentId: string;
  originId?: string;
  agentPath?: string;
  agent?: string;
  role?: string;
  /** The parent's export file in the same folder. */
  fileName: string;
  /** The parent's child-session entry on this page, when the parent is on it too. */
  target?: string;
  /** The leaf the page opens to show `target`: the parent session's own leaf. */
  targetLeaf?: string;
}

/** A child session embedded in the page, keyed by the id of its first entry. */
export interface EmbeddedSession {
  sessionId: string;
  /** How many levels below the exported session (1: a direct child). */
  depth: number;
  /** The parent's child-session entry it hangs under. */
  parentEntryId: string;
  entryCount: number;
}

/** What the page knows about orchestration entries, by entry id. */
export interface OrchestrationView {
  children: Record<string, ChildCard>;
  ancestry: Record<string, AncestryCard>;
  /** The text of each `arbor.system-prompt` entry. */
  systemPrompts: Record<string, string>;
  embedded: Record<string, EmbeddedSession>;
}
