import type { Model } from "@arbor/providers";
import type { Session, TitleGenerator } from "@arbor/session-store";
import type { AgentEventPayload } from "../contracts/index.js";
import {
  type CompactionHooks,
  type CompactionOutcome,
  type CompactionReason,
  compact,
} from "./compact.js";
import {
  type CompactionBudget,
  type CompactionSettings,
  compactionBudget,
  resolveCompactionSettings,
} from "./settings.js";
import { createTitleGenerator } from "./title-generator.js";

/** A compaction attempt as an agent reports it: the outcome, or the error that stopped it. */
export type AgentCompactionOutcome =
  | CompactionOutcome
  | { status: "failed"; reason: CompactionReason; error: unknown };

/** How an agent compacts, summarizes branches and titles its session. */
export interface AgentCompactionOptions {
  /** The session compacted: read at each use, as an agent may move on to a fork. */
  session: () => Session;
  settings?: Partial<CompactionSettings>;
  hooks?: CompactionHooks;
  /**
   * The prompt limit the context guard enforces for a model; compaction starts below it
   * (see {@link compactionBudget}). Default: the whole window.
   */
  promptLimit?: (model: Model) => number;
  /** The task tool's open items now, carried in the summary's trail. */
  openTasks?: () => readonly string[];
  /**
   * Generate a title with the model after the first exchange when none was set: `true`
   * uses {@link createTitleGenerator} with the serving model, a function is used as is.
   * Default false.
   */
  generateTitle?: boolean | TitleGenerator;
}

/**
 * The compaction side of an agent: when to compact (threshold, overflow) and the title
 * after the first exchange. Failures of these model calls
 * are reported in outcomes, never thrown into the turn.
 */
export class AgentCompaction {
  readonly settings: CompactionSettings;
  private titleTried = false;

  constructor(private readonly options: AgentCompactionOptions) {
    this.settings = resolveCompactionSettings(options.settings);
  }

  /** Where compaction starts for `model`, and how much it keeps. */
  budgetFor(model: Model): CompactionBudget {
    return compactionBudget(
      {
        contextWindow: model.info.contextWindow,
        promptLimit: this.options.promptLimit?.(model) ?? model.info.contextWindow,
        maxOutputTokens: model.info.maxOutputTokens,
      },
      this.settings,
    );
  }

  /**
   * Whether the context must be compacted before a request to `model`.
   * @param promptTokens - the estimated prompt, as the context guard measures it
   */
  needsCompaction(model: Model, promptTokens: number): boolean {
    return this.settings.enabled && promptTokens > this.budgetFor(model).threshold;
  }

  /**
   * Compacts with `model`; a model failure is returned as `failed`, the session unchanged.
   */
  async compact(
    model: Model,
    reason: CompactionReason,
    options: { customInstructions?: string; signal?: AbortSignal } = {},
  ): Promise<AgentCompactionOutcome> {
    const budget = this.budgetFor(model);
    const openTasks = this.options.openTasks?.();
    try {
      return await compact({
        session: this.options.session(),
        model,
        reason,
        settings: { ...this.settings, keepRecentTokens: budget.keepRecentTokens },
        maxSummaryTokens: budget.summaryTokens,
        ...(openTasks && openTasks.length > 0 ? { openTasks } : {}),
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
    const session = this.options.session();
    if (setting === false || this.titleTried || session.getSessionName()) return undefined;
    this.titleTried = true;
    const generator = setting === true ? createTitleGenerator(model) : setting;
    try {
      return await session.regenerateTitle(generator, signal);
    } catch (error) {
      return { title: session.getTitle(), error };
    }
  }
}

/** The `compaction` event an outcome is reported with. */
export function compactionEvent(
  outcome: AgentCompactionOutcome,
  turnIndex?: number,
): Extract<AgentEventPayload, { type: "compaction" }> {
  return {
    type: "compaction",
    ...(turnIndex !== undefined ? { turnIndex } : {}),
    reason: outcome.reason,
    status: outcome.status,
    ...(outcome.status === "compacted"
      ? { entryId: outcome.entryId, tokensBefore: outcome.tokensBefore }
      : {}),
    ...(outcome.status === "failed" ? { message: String(outcome.error) } : {}),
  };
}
