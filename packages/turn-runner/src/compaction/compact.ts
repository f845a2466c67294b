import type { Model, Usage } from "@arbor/providers";
import {
  type AgentMessage,
  type CompactionEntry,
  type FileOperations,
  type FileToolNames,
  isEntryOfType,
  type ModelRef,
  planCompaction,
  type Session,
  type SessionEntry,
} from "@arbor/session-store";
import type { CompactionReason } from "../contracts/index.js";
import {
  collectCompactionTrail,
  trailDetails,
  withoutTrail,
  withTrail,
} from "./compaction-trail.js";
import { INITIAL_SUMMARY_PROMPT, TURN_PREFIX_PROMPT, UPDATE_SUMMARY_PROMPT } from "./prompts.js";
import { type CompactionSettings, resolveCompactionSettings } from "./settings.js";
import { addUsage, NO_USAGE, requestSummary, type SummaryAnswer } from "./summary-request.js";

/** What asked for a compaction: the user, the token threshold, or a context overflow. */
export type { CompactionReason };

/** What a compaction will do, handed to `beforeCompact` before any model call. */
export interface CompactionPreparation {
  reason: CompactionReason;
  /** Estimated tokens of the context before compaction. */
  tokensBefore: number;
  /** The first entry kept verbatim after the summary. */
  firstKeptEntryId: string;
  /** The messages the summary replaces. */
  messagesToSummarize: AgentMessage[];
  /** When the cut falls inside a turn: that turn's messages before the cut. */
  turnPrefixMessages: AgentMessage[];
  splitTurn: boolean;
  /** The summary of the previous compaction, which the new one updates. */
  previousSummary?: string;
  /** Files read and modified, the previous compaction's included. */
  fileOperations: FileOperations;
  /** Instructions the user gave with a manual compaction. */
  customInstructions?: string;
}

/** What a `beforeCompact` hook sees beside the preparation (pi's `session_before_compact`). */
export interface BeforeCompactContext {
  /** Every entry of the branch being compacted, root first. */
  branchEntries: SessionEntry[];
  /** The compactions already on the branch, newest first. */
  previousCompactions: CompactionEntry[];
  /** The model that will write the summary. */
  model: ModelRef;
  /** The instruction the model will summarize the conversation with. */
  prompt: string;
}

/**
 * What a `beforeCompact` hook may answer: cancel, supply the summary (and details), or
 * replace the instruction the model summarizes with.
 */
export interface BeforeCompactResult {
  cancel?: boolean;
  summary?: string;
  details?: unknown;
  /** Replaces {@link BeforeCompactContext.prompt} for this compaction. */
  prompt?: string;
  /** Lines added to the summary's trail (`<notes>`), kept by later compactions too. */
  trail?: string[];
}

/** A stored compaction. */
export interface CompactionResult {
  status: "compacted";
  reason: CompactionReason;
  /** The id of the `compaction` entry, the new leaf. */
  entryId: string;
  summary: string;
  firstKeptEntryId: string;
  tokensBefore: number;
  details: unknown;
  /** True when a `beforeCompact` hook supplied the summary. */
  fromHook: boolean;
  /** Tokens the summary requests cost (zero when a hook supplied the summary). */
  usage: Usage;
}

/** How a compaction request ended. */
export type CompactionOutcome =
  | CompactionResult
  | { status: "disabled" | "nothing_to_compact" | "cancelled"; reason: CompactionReason };

/** Hooks extensions use to take part in a compaction. */
export interface CompactionHooks {
  /**
   * Called before the model is asked; may cancel, supply the summary instead, or replace
   * the summarizing instruction.
   */
  beforeCompact?: (
    preparation: CompactionPreparation,
    context: BeforeCompactContext,
  ) => Promise<BeforeCompactResult | undefined> | BeforeCompactResult | undefined;
  /** Called once the compaction entry is stored. */
  afterCompact?: (result: CompactionResult) => Promise<void> | void;
}

/** Options of {@link compact}. */
export interface CompactOptions extends CompactionHooks {
  session: Session;
  /** The model that writes the summary: the session's own. */
  model: Model;
  settings?: Partial<CompactionSettings>;
  /** Default `"manual"`. */
  reason?: CompactionReason;
  customInstructions?: string;
  signal?: AbortSignal;
  /** Longest tool result in the transcript, in characters. */
  toolResultMaxChars?: number;
  /** Which tools read and modify files. */
  toolNames?: FileToolNames;
  /**
   * The most tokens the summary may take; default {@link summaryTokenBudget}. An agent
   * sets it from the window, so a summary of a small window leaves room to go on.
   */
  maxSummaryTokens?: number;
  /** The task tool's open items (`[state] text`), carried in the trail. */
  openTasks?: readonly string[];
}

/** The output budget of a summary: 80% of the reserve, within the model's own limit. */
export function summaryTokenBudget(model: Model, settings: CompactionSettings): number {
  return Math.max(
    256,
    Math.min(model.info.maxOutputTokens, Math.floor(settings.reserveTokens * 0.8)),
  );
}

/**
 * Compacts a session at its leaf: plans the cut, lets `beforeCompact` cancel or supply the
 * summary, otherwise asks the model (the update prompt when an earlier compaction exists;
 * the prefix of a cut turn summarized separately), and appends a pi-compatible
 * `compaction` entry whose `details` carry the files read and modified. Nothing is
 * deleted: moving the leaf back to the entry before the compaction undoes it.
 *
 * @returns `disabled` when settings say so, `nothing_to_compact`, `cancelled`, or the
 * stored compaction
 * @throws SummaryError when the model fails; the session is left unchanged
 * @example
 * ```ts
 * const outcome = await compact({ session, model, customInstructions: "keep the API names" });
 * if (outcome.status === "compacted") console.log(outcome.summary);
 * ```
 */
export async function compact(options: CompactOptions): Promise<CompactionOutcome> {
  const settings = resolveCompactionSettings(options.settings);
  const reason = options.reason ?? "manual";
  if (!settings.enabled) return { status: "disabled", reason };
  const { session } = options;
  const branchEntries = session.getBranch();
  const plan = planCompaction(branchEntries, {
    keepRecentTokens: settings.keepRecentTokens,
    ...(options.toolNames ? { toolNames: options.toolNames } : {}),
  });
  if (!plan) return { status: "nothing_to_compact", reason };
  const preparation: CompactionPreparation = {
    reason,
    ...plan,
    ...(options.customInstructions !== undefined
      ? { customInstructions: options.customInstructions }
      : {}),
  };
  const defaultPrompt =
    plan.previousSummary === undefined ? INITIAL_SUMMARY_PROMPT : UPDATE_SUMMARY_PROMPT;
  const hook = await options.beforeCompact?.(preparation, {
    branchEntries,
    previousCompactions: branchEntries
      .filter((entry): entry is CompactionEntry => isEntryOfType(entry, "compaction"))
      .reverse(),
    model: { provider: options.model.info.provider, modelId: options.model.info.id },
    prompt: defaultPrompt,
  });
  if (hook?.cancel) return { status: "cancelled", reason };
  const prompt = hook?.prompt?.trim() ? hook.prompt : defaultPrompt;

  const previous = branchEntries.findLast((entry): entry is CompactionEntry =>
    isEntryOfType(entry, "compaction"),
  );
  const trail = collectCompactionTrail([...plan.messagesToSummarize, ...plan.turnPrefixMessages], {
    carried: previous?.details,
    ...(options.openTasks ? { openTasks: options.openTasks } : {}),
  });
  const carriedNotes = (previous?.details as { notes?: unknown } | undefined)?.notes;
  trail.notes = [
    ...(Array.isArray(carriedNotes) ? carriedNotes.filter((n) => typeof n === "string") : []),
    ...(hook?.trail ?? []).filter((line) => line.trim() !== ""),
  ];
  let summary: string;
  let usage: Usage = { ...NO_USAGE };
  let details: unknown = trailDetails(trail);
  const hookSummary = hook?.summary?.trim() ?? "";
  const fromHook = hookSummary !== "";
  if (fromHook) {
    summary = hookSummary;
    if (hook?.details !== undefined) details = hook.details;
  } else {
    const answer = await summarize(preparation, prompt, options, settings);
    summary = withTrail(answer.text, trail);
    usage = answer.usage;
  }
  const entryId = await session.appendCompaction(
    summary,
    plan.firstKeptEntryId,
    plan.tokensBefore,
    details,
    fromHook ? true : undefined,
  );
  const result: CompactionResult = {
    status: "compacted",
    reason,
    entryId,
    summary,
    firstKeptEntryId: plan.firstKeptEntryId,
    tokensBefore: plan.tokensBefore,
    details,
    fromHook,
    usage,
  };
  await options.afterCompact?.(result);
  return result;
}

async function summarize(
  preparation: CompactionPreparation,
  prompt: string,
  options: CompactOptions,
  settings: CompactionSettings,
): Promise<SummaryAnswer> {
  const budget = options.maxSummaryTokens ?? summaryTokenBudget(options.model, settings);
  const common = {
    ...(options.toolResultMaxChars !== undefined
      ? { toolResultMaxChars: options.toolResultMaxChars }
      : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  };
  const { messagesToSummarize, turnPrefixMessages } = preparation;
  // The file lists are appended again once the summary is written.
  const previousSummary =
    preparation.previousSummary === undefined
      ? undefined
      : withoutTrail(preparation.previousSummary);
  const history: Promise<SummaryAnswer | undefined> =
    messagesToSummarize.length === 0
      ? Promise.resolve(
          previousSummary === undefined ? undefined : { text: previousSummary, usage: NO_USAGE },
        )
      : requestSummary(options.model, {
          messages: messagesToSummarize,
          instruction: prompt,
          ...(previousSummary !== undefined ? { previousSummary } : {}),
          ...(preparation.customInstructions !== undefined
            ? { customInstructions: preparation.customInstructions }
            : {}),
          maxOutputTokens: budget,
          ...common,
        });
  const prefix =
    preparation.splitTurn && turnPrefixMessages.length > 0
      ? requestSummary(options.model, {
          messages: turnPrefixMessages,
          instruction: TURN_PREFIX_PROMPT,
          maxOutputTokens: Math.max(256, Math.floor(budget / 2)),
          ...common,
        })
      : Promise.resolve(undefined);
  const [historySummary, prefixSummary] = await Promise.all([history, prefix]);
  if (prefixSummary === undefined) return historySummary ?? { text: "", usage: { ...NO_USAGE } };
  const head = historySummary?.text ?? "No earlier conversation.";
  return {
    text: `${head}\n\n---\n\n## Beginning of the current turn\n\n${prefixSummary.text}`,
    usage: addUsage(historySummary?.usage ?? NO_USAGE, prefixSummary.usage),
  };
}
