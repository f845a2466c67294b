import type { Model } from "@arbor/providers";
import {
  estimateContextTokens,
  type Session,
  type SessionEntry,
  type TitleGenerator,
} from "@arbor/session-store";
import { summarizeAbandonedBranch } from "./branch-summary.js";
import {
  type CompactionHooks,
  type CompactionOutcome,
  type CompactionReason,
  compact,
} from "./compact.js";
import { type CompactionSettings, resolveCompactionSettings, shouldCompact } from "./settings.js";
import { createTitleGenerator } from "./title-generator.js";

/** A compaction attempt as an agent reports it: the outcome, or the error that stopped it. */
export type AgentCompactionOutcome =
  | CompactionOutcome
  | { status: "failed"; reason: CompactionReason; error: unknown };

/** How an agent compacts, summarizes branches and titles its session. */
export interface AgentCompactionOptions {
  session: Session;
  settings?: Partial<CompactionSettings>;
  hooks?: CompactionHooks;
  /**
   * Generate a title with the model after the first exchange when none was set: `true`
   * uses {@link createTitleGenerator} with the serving model, a function is used as is.
   * Default false.
   */
  generateTitle?: boolean | TitleGenerator;
}

/** Where a navigation with a summary went. */
export interface BranchNavigation {
  oldLeafId: string | null;
  newLeafId: string | null;
  /** The `branch_summary` entry, when one was written. */
  summaryEntryId?: string;
}

/**
 * The compaction side of an agent: when to compact (threshold, overflow), the title after
 * the first exchange, and branch summaries for navigation. Failures of these model calls
 * are reported in outcomes, never thrown into the turn.
 */
export class AgentCompaction {
  readonly settings: CompactionSettings;
  private titleTried = false;

  constructor(private readonly options: AgentCompactionOptions) {
    this.settings = resolveCompactionSettings(options.settings);
  }

  /** Estimated tokens of the context the next request would carry. */
  contextTokens(): number {
    return estimateContextTokens(this.options.session.getBranch());
  }

  /** Whether the context must be compacted before a request to `model`. */
  needsCompaction(model: Model): boolean {
    return shouldCompact(this.contextTokens(), model.info.contextWindow, this.settings);
  }

  /**
   * Compacts with `model`; a model failure is returned as `failed`, the session unchanged.
   */
  async compact(
    model: Model,
    reason: CompactionReason,
    options: { customInstructions?: string; signal?: AbortSignal } = {},
  ): Promise<AgentCompactionOutcome> {
    try {
      return await compact({
        session: this.options.session,
        model,
        reason,
        settings: this.settings,
        ...options,
        ...this.options.hooks,
      });
    } catch (error) {
      return { status: "failed", reason, error };
    }
  }

  /**
   * After an exchange: generates a title once when the session has none and titles are
   * on. Never throws; the outcome says what happened (undefined: not attempted).
   */
  async titleAfterExchange(
    model: Model,
    signal?: AbortSignal,
  ): Promise<{ title: string | undefined; error?: unknown } | undefined> {
    const setting = this.options.generateTitle ?? false;
    const { session } = this.options;
    if (setting === false || this.titleTried || session.getSessionName()) return undefined;
    this.titleTried = true;
    const generator = setting === true ? createTitleGenerator(model) : setting;
    try {
      return await session.regenerateTitle(generator, signal);
    } catch (error) {
      return { title: session.getTitle(), error };
    }
  }

  /**
   * A summarizer for the navigation seam of the extension bridge: the branch entries (root
   * first) in, the summary text out.
   */
  branchSummarizer(
    model: Model,
  ): (entries: SessionEntry[], signal?: AbortSignal) => Promise<string | undefined> {
    return async (entries, signal) => {
      const summary = await summarizeAbandonedBranch({
        session: this.options.session,
        model,
        targetId: null,
        branchEntries: entries,
        ...(signal ? { signal } : {}),
      });
      return summary?.summary;
    };
  }

  /**
   * Moves the leaf to `targetId` (`null`: before the first entry); with `summarize`, the
   * branch left is summarized by `model` into a `branch_summary` entry at the new position.
   * @throws SummaryError when the summary fails; the leaf has not moved then
   */
  async navigate(
    model: Model,
    targetId: string | null,
    options: { summarize?: boolean; customInstructions?: string; signal?: AbortSignal } = {},
  ): Promise<BranchNavigation> {
    const { session } = this.options;
    const oldLeafId = session.getLeafId();
    const summary = options.summarize
      ? await summarizeAbandonedBranch({
          session,
          model,
          targetId,
          ...(options.customInstructions !== undefined
            ? { customInstructions: options.customInstructions }
            : {}),
          ...(options.signal ? { signal: options.signal } : {}),
        })
      : undefined;
    if (summary) {
      const summaryEntryId = await session.branchWithSummary(
        targetId,
        summary.summary,
        summary.details,
      );
      return { oldLeafId, newLeafId: summaryEntryId, summaryEntryId };
    }
    if (targetId === null) await session.resetLeaf();
    else await session.branch(targetId);
    return { oldLeafId, newLeafId: targetId };
  }
}
