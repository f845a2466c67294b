import {
  CHECKPOINT_CUSTOM_TYPE,
  type CheckpointEntryData,
  readArborEntry,
  type Session,
  type SessionEntry,
} from "@arbor/session-store";
import { type AgentTool, defineTool } from "@arbor/turn-runner";
import { CheckpointError } from "./checkpoint-error.js";
import type { FileChange, RestoreResult, SnapshotResult } from "./checkpoint-schema.js";
import type { CheckpointStore } from "./checkpoint-store.js";

/** The tools whose calls can change files, unless the app names others. */
export const DEFAULT_WRITING_TOOLS: readonly string[] = ["write", "edit", "bash"];

/** The most paths one checkpoint entry lists by default; `changedCount` tells the rest. */
export const DEFAULT_LISTED_PATHS = 1_000;

/** Options of {@link sessionCheckpoints}. */
export interface SessionCheckpointsOptions {
  /** The workspace's checkpoint store (`openCheckpointStore`). */
  store: CheckpointStore;
  /**
   * The names of the tools whose calls can change files (MCP or extension tools that
   * write included). Default {@link DEFAULT_WRITING_TOOLS}.
   */
  writingTools?: readonly string[];
  /** The most paths an entry lists as changed or skipped. Default {@link DEFAULT_LISTED_PATHS}. */
  maxListedPaths?: number;
  /**
   * Hears a checkpoint that could not be taken around a tool call (the tool still runs
   * and its result is stored; only that checkpoint is missing).
   */
  onError?: (error: unknown) => void;
}

/** One `arbor.checkpoint` entry of a session, with where it sits in the tree. */
export interface CheckpointRecord extends CheckpointEntryData {
  entryId: string;
  parentId: string | null;
  timestamp: string;
}

/** What bringing the files back to an entry's state did (or, dry, would do). */
export interface CodeRewind extends RestoreResult {
  /** The checkpoint entry whose snapshot the files were brought to. */
  checkpointEntryId: string;
  /** The `before_rewind` entry recording the state left (restoring it undoes the rewind). */
  beforeEntryId?: string;
  /** The `rewind` entry at the leaf, for a code-only rewind. */
  rewindEntryId?: string;
}

/**
 * Checkpoints bound to a session's tree: the writing tools record an `arbor.checkpoint`
 * entry before (when the files changed since the branch's last one, catching hand edits)
 * and after each call, so every entry knows the files it saw; the files can be brought
 * back to any entry's state, and every such rewind is itself recorded and can be undone.
 * An agent host takes it as its `checkpoints` option.
 */
export interface SessionCheckpoints {
  /** The writing tools wrapped so each call records checkpoints in `current()`; others as they are. */
  bindTools(tools: readonly AgentTool[], current: () => Session): AgentTool[];
  /** Snapshots the files and appends an entry at the leaf when they differ from the branch's last one. */
  record(
    session: Session,
    reason: string,
    toolCallId?: string,
  ): Promise<CheckpointRecord | undefined>;
  /** Every checkpoint entry of the session, every branch, in the order written. */
  list(session: Session): CheckpointRecord[];
  /**
   * The checkpoint whose files an entry saw: the last one on its path, else (an entry
   * before any writing tool ran) the first one written below it.
   */
  stateAt(session: Session, entryId: string | null): CheckpointRecord | undefined;
  /**
   * Brings the files to the state `entryId` saw. The state left is recorded first
   * (`before_rewind`); with `markLeaf` a `rewind` entry at the leaf says the files now are
   * the target's. A dry run changes and records nothing.
   * @throws CheckpointError `no_checkpoint` when no checkpoint knows the entry's files; the store's errors
   */
  restoreTo(
    session: Session,
    entryId: string | null,
    options: { dryRun: boolean; markLeaf: boolean },
  ): Promise<CodeRewind>;
  /**
   * Writes the files `entryId` saw into another folder (a fork's work tree), deleting the
   * files of `removable` that state lacks.
   * @throws CheckpointError `no_checkpoint` when no checkpoint knows the entry's files
   */
  materializeAt(
    session: Session,
    entryId: string | null,
    target: string,
    options?: { removable?: readonly string[] },
  ): Promise<{ written: string[]; deleted: string[] }>;
  /** How the files now differ from the state `entryId` saw. */
  diffSince(session: Session, entryId: string | null): Promise<FileChange[]>;
}

/**
 * Binds a workspace's checkpoint store to session trees.
 *
 * @example
 * ```ts
 * const store = await openCheckpointStore({ workspace, home });
 * const host = await AgentHost.open({
 *   ...options,
 *   tools: workspaceTools(workspace),
 *   ...(store.available ? { checkpoints: sessionCheckpoints({ store }) } : {}),
 * });
 * ```
 */
export function sessionCheckpoints(options: SessionCheckpointsOptions): SessionCheckpoints {
  return new TreeCheckpoints(options);
}

class TreeCheckpoints implements SessionCheckpoints {
  readonly #store: CheckpointStore;
  readonly #writing: ReadonlySet<string>;
  readonly #max: number;
  readonly #onError: (error: unknown) => void;

  constructor(options: SessionCheckpointsOptions) {
    this.#store = options.store;
    this.#writing = new Set(options.writingTools ?? DEFAULT_WRITING_TOOLS);
    this.#max = options.maxListedPaths ?? DEFAULT_LISTED_PATHS;
    this.#onError = options.onError ?? (() => undefined);
  }

  bindTools(tools: readonly AgentTool[], current: () => Session): AgentTool[] {
    return tools.map((tool) =>
      !this.#writing.has(tool.name)
        ? tool
        : defineTool({
            ...tool,
            execute: async (args, context) => {
              const session = current();
              await this.record(session, "before_tool").catch(this.#onError);
              try {
                return await tool.execute(args as never, context);
              } finally {
                await this.record(session, "after_tool", context.toolCallId).catch(this.#onError);
              }
            },
          }),
    );
  }

  async record(
    session: Session,
    reason: string,
    toolCallId?: string,
  ): Promise<CheckpointRecord | undefined> {
    const snapshot = await this.#store.snapshot();
    return this.#appendIfNew(session, snapshot.id, { reason, toolCallId }, snapshot);
  }

  list(session: Session): CheckpointRecord[] {
    return session.getEntries().flatMap((entry) => {
      const record = recordOf(entry);
      return record ? [record] : [];
    });
  }

  stateAt(session: Session, entryId: string | null): CheckpointRecord | undefined {
    if (entryId !== null && session.getEntry(entryId) === undefined) return undefined;
    const above = entryId === null ? undefined : lastOnPath(session, entryId);
    if (above) return above;
    // Before any writing tool ran the files were what the first checkpoint below found.
    const below = new Set<string | null>([entryId]);
    for (const entry of session.getEntries()) {
      if (!below.has(entry.parentId)) continue;
      below.add(entry.id);
      const record = recordOf(entry);
      if (record) return record;
    }
    return undefined;
  }

  async restoreTo(
    session: Session,
    entryId: string | null,
    options: { dryRun: boolean; markLeaf: boolean },
  ): Promise<CodeRewind> {
    const target = this.stateAt(session, entryId);
    if (target === undefined) {
      throw new CheckpointError(
        "no_checkpoint",
        `No checkpoint knows the files of entry ${entryId ?? "(root)"}: no writing tool ran on its path; rewind the conversation only.`,
      );
    }
    if (options.dryRun) {
      const plan = await this.#store.restore(target.snapshotId, { dryRun: true });
      return { ...plan, checkpointEntryId: target.entryId };
    }
    const before = await this.record(session, "before_rewind");
    const done = await this.#store.restore(target.snapshotId);
    const rewind = options.markLeaf
      ? await this.#appendIfNew(session, target.snapshotId, {
          reason: "rewind",
          targetEntryId: target.entryId,
        })
      : undefined;
    return {
      ...done,
      checkpointEntryId: target.entryId,
      ...(before ? { beforeEntryId: before.entryId } : {}),
      ...(rewind ? { rewindEntryId: rewind.entryId } : {}),
    };
  }

  async materializeAt(
    session: Session,
    entryId: string | null,
    target: string,
    options: { removable?: readonly string[] } = {},
  ): Promise<{ written: string[]; deleted: string[] }> {
    const state = this.stateAt(session, entryId);
    if (state === undefined) {
      throw new CheckpointError(
        "no_checkpoint",
        `No checkpoint knows the files of entry ${entryId ?? "(root)"}: no writing tool ran on its path.`,
      );
    }
    return this.#store.materialize(state.snapshotId, target, options);
  }

  async diffSince(session: Session, entryId: string | null): Promise<FileChange[]> {
    const target = this.stateAt(session, entryId);
    if (target === undefined) {
      throw new CheckpointError(
        "no_checkpoint",
        `No checkpoint knows the files of entry ${entryId ?? "(root)"}: no writing tool ran on its path.`,
      );
    }
    const now = await this.#store.snapshot();
    return this.#store.diff(target.snapshotId, now.id);
  }

  /** Appends a checkpoint entry at the leaf unless the branch's last one holds the same snapshot. */
  async #appendIfNew(
    session: Session,
    snapshotId: string,
    fields: { reason: string; toolCallId?: string | undefined; targetEntryId?: string },
    snapshot?: SnapshotResult,
  ): Promise<CheckpointRecord | undefined> {
    const leaf = session.getLeafId();
    const previous = leaf === null ? undefined : lastOnPath(session, leaf);
    if (previous?.snapshotId === snapshotId) return undefined;
    let changed: string[] = [];
    if (previous !== undefined) {
      changed =
        snapshot?.previousId === previous.snapshotId
          ? snapshot.changed
          : (await this.#store.diff(previous.snapshotId, snapshotId).catch(() => [])).map(
              (change) => change.path,
            );
    }
    const skipped = snapshot?.skipped ?? [];
    const data: CheckpointEntryData = {
      snapshotId,
      changed: changed.slice(0, this.#max),
      ...(changed.length > this.#max ? { changedCount: changed.length } : {}),
      ...(skipped.length > 0 ? { skipped: skipped.slice(0, this.#max) } : {}),
      reason: fields.reason,
      ...(fields.toolCallId !== undefined ? { toolCallId: fields.toolCallId } : {}),
      ...(fields.targetEntryId !== undefined ? { targetEntryId: fields.targetEntryId } : {}),
    };
    const entryId = await session.appendCustomEntry(CHECKPOINT_CUSTOM_TYPE, data);
    const entry = session.getEntry(entryId);
    return entry ? recordOf(entry) : undefined;
  }
}

/** The last checkpoint on the path from the root to `entryId`, that entry included. */
function lastOnPath(session: Session, entryId: string): CheckpointRecord | undefined {
  const path = session.getBranch(entryId);
  for (let at = path.length - 1; at >= 0; at--) {
    const record = recordOf(path[at] as SessionEntry);
    if (record) return record;
  }
  return undefined;
}

function recordOf(entry: SessionEntry): CheckpointRecord | undefined {
  const data = readArborEntry(entry, CHECKPOINT_CUSTOM_TYPE);
  if (data === undefined) return undefined;
  return { ...data, entryId: entry.id, parentId: entry.parentId, timestamp: entry.timestamp };
}
