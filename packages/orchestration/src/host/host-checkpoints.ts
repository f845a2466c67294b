import type { CheckpointEntryData, Session } from "@arbor/session-store";
import type { AgentTool, TreeNavigation } from "@arbor/turn-runner";

/** One `arbor.checkpoint` entry of a session, with where it sits in the tree. */
export interface HostCheckpointRecord extends CheckpointEntryData {
  entryId: string;
  parentId: string | null;
  timestamp: string;
}

/** How a path differs between two states of the files. */
export interface HostFileChange {
  path: string;
  status: "added" | "modified" | "deleted" | "type_changed";
}

/** What bringing the files back did (or, in a dry run, would do). */
export interface HostCodeRewind {
  /** The snapshot the files were brought to. */
  targetId: string;
  dryRun: boolean;
  /** The snapshot of the files just before (restoring it undoes the rewind). */
  undoId?: string;
  written: string[];
  deleted: string[];
  /** Paths left alone so nothing the snapshots do not know is lost. */
  kept: Array<{ path: string; reason: string }>;
  /** The checkpoint entry whose files these are. */
  checkpointEntryId: string;
  /** The `before_rewind` entry recording the state left. */
  beforeEntryId?: string;
  /** The `rewind` entry at the leaf (code-only rewinds). */
  rewindEntryId?: string;
}

/**
 * What a host needs of a workspace's checkpoints: `sessionCheckpoints` of
 * `@arbor/workspace` is one. The host binds the writing tools of every session it takes
 * up, and rewinds, lists and diffs through it.
 */
export interface HostCheckpoints {
  bindTools(tools: readonly AgentTool[], current: () => Session): AgentTool[];
  list(session: Session): HostCheckpointRecord[];
  stateAt(session: Session, entryId: string | null): HostCheckpointRecord | undefined;
  restoreTo(
    session: Session,
    entryId: string | null,
    options: { dryRun: boolean; markLeaf: boolean },
  ): Promise<HostCodeRewind>;
  diffSince(session: Session, entryId: string | null): Promise<HostFileChange[]>;
}

/** What a rewind moves: the conversation (the leaf), the code (the files), or both. */
export type RewindTarget = "conversation" | "code" | "both";

/** Options of `AgentHost.rewind`. */
export interface RewindOptions {
  /** Default `both`. */
  to?: RewindTarget;
  /** Say what would change; change and record nothing. */
  dryRun?: boolean;
  /** Summarize the branch the leaf leaves (conversation and both). */
  summarize?: boolean;
}

/** What a rewind did (or would do). */
export interface HostRewind {
  entryId: string | null;
  to: RewindTarget;
  dryRun: boolean;
  /** The files' part; undefined for a conversation-only rewind. */
  code?: HostCodeRewind;
  /** The leaf's move; undefined for a code-only rewind and a dry run. */
  navigation?: TreeNavigation;
}
