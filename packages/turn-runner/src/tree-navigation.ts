import type { ExtensionRunner } from "@arbor/extensions-api";
import type { Model } from "@arbor/providers";
import { isEntryOfType, type Session, type SessionEntry } from "@arbor/session-store";
import { EntryNotFoundError, InvalidAgentOptionsError } from "./contracts/index.js";
import { emitIsolated } from "./extensions/isolated-emit.js";

/** What a branch summarizer is handed when the leaf leaves a branch. */
export interface BranchSummaryInput {
  session: Session;
  /** Where the leaf goes (`null`: before the first entry). */
  targetId: string | null;
  /** The leaf being left. */
  oldLeafId: string | null;
  /** The model the agent would send its next request to. */
  model: Model;
  customInstructions?: string;
  signal?: AbortSignal;
}

/**
 * Summarizes the branch the leaf leaves; undefined when there is nothing worth a summary
 * (the leaf then moves without one).
 */
export type BranchSummarizer = (
  input: BranchSummaryInput,
) => Promise<{ summary: string; details?: unknown } | undefined>;

/**
 * Summarizes the entries of the branch being left (an app's own summarizer): the summary
 * alone or with `details` stored on the entry; undefined moves the leaf without one.
 */
export type BranchEntriesSummarizer = (
  entries: SessionEntry[],
  signal?: AbortSignal,
) => Promise<string | { summary: string; details?: unknown } | undefined>;

/** Options of a tree navigation (`AgentSession.navigateTree`, `agent.extensions.navigateTree`). */
export interface NavigateTreeOptions {
  /**
   * Summarize the branch left into a `branch_summary` entry: `true` with the agent's
   * `summarizeBranch` option (which it then needs), or with this function. An extension's
   * summary (`session_before_tree`) comes first.
   */
  summarize?: boolean | BranchEntriesSummarizer;
  /** Handed to `summarizeBranch` to focus the summary. */
  customInstructions?: string;
  signal?: AbortSignal;
}

/** Where a navigation went. */
export interface TreeNavigation {
  oldLeafId: string | null;
  /** The new leaf: the target, or the `branch_summary` entry written after it. */
  newLeafId: string | null;
  /** The `branch_summary` entry, when one was written. */
  summaryEntryId?: string;
}

/** How a navigation with extensions went: an extension may have cancelled it. */
export type NavigateTreeResult =
  | { cancelled: true; extensionName: string }
  | (TreeNavigation & {
      cancelled: false;
      /** True when an extension supplied the summary. */
      fromExtension: boolean;
    });

/** Whom a navigation involves besides the session. */
export interface TreeNavigationParties {
  /** Extensions: `session_before_tree` may cancel or supply the summary; `session_tree` follows. */
  runner?: ExtensionRunner | undefined;
  /** The agent's summarizer, for `summarize: true`. */
  summarizeBranch?: BranchSummarizer | undefined;
  /** The model the agent would send its next request to (for `summarizeBranch`). */
  model?: Model | undefined;
}

/**
 * Moves a session's leaf to `targetId` (`null`: before the first entry), writing a summary
 * of the branch left when asked or when an extension supplies one. The leaf moves only
 * after the summary is in, so a failing summarizer leaves it in place.
 * @throws InvalidAgentOptionsError for `summarize: true` without `summarizeBranch`;
 *   EntryNotFoundError when the target does not exist (the leaf has not moved)
 */
export async function navigateTree(
  session: Session,
  targetId: string | null,
  options: NavigateTreeOptions,
  parties: TreeNavigationParties,
): Promise<NavigateTreeResult> {
  const { runner, summarizeBranch } = parties;
  if (options.summarize === true && !summarizeBranch) {
    throw new InvalidAgentOptionsError(
      "summarizeBranch",
      "navigateTree({ summarize: true }) needs the `summarizeBranch` option",
    );
  }
  if (targetId !== null && !session.getEntry(targetId)) throw new EntryNotFoundError(targetId);
  const oldLeafId = session.getLeafId();
  const entriesToSummarize = branchLeft(session, targetId);
  const emitOptions = options.signal ? { signal: options.signal } : {};
  let summary: string | undefined;
  let details: unknown;
  if (runner) {
    const decision = await emitIsolated(
      runner,
      {
        type: "session_before_tree",
        targetId,
        oldLeafId,
        commonAncestorId: commonAncestor(session, targetId),
        entriesToSummarize,
        userWantsSummary: options.summarize !== undefined && options.summarize !== false,
      },
      emitOptions,
    );
    if (decision.cancelled) return { cancelled: true, extensionName: decision.extensionName };
    summary = decision.summary;
    details = decision.details;
  }
  const fromExtension = summary !== undefined;
  if (summary === undefined) {
    const made = await summarizeLeft(
      session,
      targetId,
      oldLeafId,
      entriesToSummarize,
      options,
      parties,
    );
    summary = typeof made === "string" ? made : made?.summary;
    details = typeof made === "object" ? made.details : undefined;
  }
  let summaryEntryId: string | undefined;
  if (summary) summaryEntryId = await session.branchWithSummary(targetId, summary, details);
  else if (targetId === null) await session.resetLeaf();
  else await session.branch(targetId);
  const moved = {
    oldLeafId,
    newLeafId: session.getLeafId(),
    ...(summaryEntryId === undefined ? {} : { summaryEntryId }),
  };
  if (runner) {
    await emitIsolated(
      runner,
      {
        type: "session_tree",
        newLeafId: moved.newLeafId,
        oldLeafId,
        fromExtension: fromExtension && summary !== undefined,
        ...(summaryEntryId === undefined ? {} : { summaryEntryId }),
      },
      emitOptions,
    );
  }
  return { cancelled: false, ...moved, fromExtension: fromExtension && summary !== undefined };
}

/**
 * The summary of the branch left, by the app's function (when entries are left) or the
 * agent's `summarizeBranch` (`summarize: true`; with extensions, only when entries are left).
 */
function summarizeLeft(
  session: Session,
  targetId: string | null,
  oldLeafId: string | null,
  entries: SessionEntry[],
  options: NavigateTreeOptions,
  parties: TreeNavigationParties,
): Promise<string | { summary: string; details?: unknown } | undefined> {
  const { summarize } = options;
  if (typeof summarize === "function") {
    return entries.length > 0 ? summarize(entries, options.signal) : Promise.resolve(undefined);
  }
  const { summarizeBranch, model } = parties;
  if (summarize !== true || !summarizeBranch || !model) return Promise.resolve(undefined);
  if (parties.runner && entries.length === 0) return Promise.resolve(undefined);
  return summarizeBranch({
    session,
    targetId,
    oldLeafId,
    model,
    ...(options.customInstructions !== undefined
      ? { customInstructions: options.customInstructions }
      : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
}

/**
 * The deepest entry on both the current path and the target's path (`null`: none, as when
 * the target is `null` or the two paths share no root).
 */
function commonAncestor(session: Session, targetId: string | null): string | null {
  if (targetId === null) return null;
  const current = new Set(session.getBranch().map((entry) => entry.id));
  const target = session.getBranch(targetId);
  for (let i = target.length - 1; i >= 0; i--) {
    const id = target[i]?.id;
    if (id !== undefined && current.has(id)) return id;
  }
  return null;
}

/** The entries of the current branch that are not on the target's path, root first. */
function branchLeft(session: Session, targetId: string | null): SessionEntry[] {
  const kept = new Set(targetId === null ? [] : session.getBranch(targetId).map((e) => e.id));
  return session.getBranch().filter((entry) => !kept.has(entry.id));
}

/** The model chosen last on the current path with a `model_change` entry, if any. */
export function chosenModel(session: Session): { provider: string; modelId: string } | undefined {
  const path = session.getBranch();
  for (let i = path.length - 1; i >= 0; i--) {
    const entry = path[i];
    if (entry && isEntryOfType(entry, "model_change")) {
      return { provider: entry.provider, modelId: entry.modelId };
    }
  }
  return undefined;
}
