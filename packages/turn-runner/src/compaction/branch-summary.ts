import type { Model } from "@arbor/providers";
import {
  type AgentMessage,
  collectAbandonedBranch,
  type FileOperations,
  type FileToolNames,
  type Session,
  type SessionEntry,
} from "@arbor/session-store";
import type { BeforeCompactResult } from "./compact.js";
import { BRANCH_SUMMARY_PROMPT } from "./prompts.js";
import { requestSummary, withFileLists } from "./summary-request.js";

/** What a branch summary will cover, handed to `beforeSummarize` before any model call. */
export interface BranchSummaryPreparation {
  /** Where the leaf goes (`null`: before the first entry). */
  targetId: string | null;
  oldLeafId: string | null;
  /** Every entry of the branch being left, after the common ancestor, root first. */
  entriesToSummarize: SessionEntry[];
  /** The messages that fit the budget, newest kept first, in conversation order. */
  messages: AgentMessage[];
  fileOperations: FileOperations;
}

/** A summary of an abandoned branch, ready for `Session.branchWithSummary`. */
export interface BranchSummary {
  summary: string;
  details: unknown;
  /** True when `beforeSummarize` supplied the summary. */
  fromHook: boolean;
}

/** Options of {@link summarizeAbandonedBranch}. */
export interface BranchSummaryOptions {
  session: Session;
  model: Model;
  /** Where the leaf is going. */
  targetId: string | null;
  /**
   * The entries of the branch left, root first, when the caller has worked them out
   * already. Default: the leaf's path after its common ancestor with `targetId`.
   */
  branchEntries?: readonly SessionEntry[];
  /** Estimated tokens of the branch sent to the model. Default: half the model's window. */
  maxTokens?: number;
  /** Output budget of the summary. Default 2,048 tokens. */
  maxOutputTokens?: number;
  customInstructions?: string;
  signal?: AbortSignal;
  toolResultMaxChars?: number;
  toolNames?: FileToolNames;
  /** May cancel the summary (`cancel`: navigate without one) or supply it. */
  beforeSummarize?: (
    preparation: BranchSummaryPreparation,
  ) => Promise<BeforeCompactResult | undefined> | BeforeCompactResult | undefined;
}

/**
 * Summarizes the branch the leaf leaves when it moves to `targetId`: from the old leaf back
 * to the common ancestor, newest messages first within the token budget.
 * @returns the summary, or undefined when nothing is left behind or a hook cancelled
 * @throws SummaryError when the model fails
 */
export async function summarizeAbandonedBranch(
  options: BranchSummaryOptions,
): Promise<BranchSummary | undefined> {
  const { session, model, targetId } = options;
  const oldPath = options.branchEntries ?? session.getBranch();
  const newPath = options.branchEntries || targetId === null ? [] : session.getBranch(targetId);
  const branch = collectAbandonedBranch(oldPath, newPath, {
    maxTokens: options.maxTokens ?? Math.floor(model.info.contextWindow / 2),
    ...(options.toolNames ? { toolNames: options.toolNames } : {}),
  });
  if (branch.messages.length === 0) return undefined;
  const hook = await options.beforeSummarize?.({
    targetId,
    oldLeafId: session.getLeafId(),
    entriesToSummarize: branch.entries,
    messages: branch.messages,
    fileOperations: branch.fileOperations,
  });
  if (hook?.cancel) return undefined;
  if (hook?.summary?.trim()) {
    return {
      summary: hook.summary.trim(),
      details: hook.details ?? branch.fileOperations,
      fromHook: true,
    };
  }
  const omitted =
    branch.omittedMessages > 0
      ? `\n\n(${branch.omittedMessages} older messages of the branch were left out of the transcript.)`
      : "";
  const { text } = await requestSummary(model, {
    messages: branch.messages,
    instruction: BRANCH_SUMMARY_PROMPT + omitted,
    maxOutputTokens: Math.min(model.info.maxOutputTokens, options.maxOutputTokens ?? 2_048),
    ...(options.customInstructions !== undefined
      ? { customInstructions: options.customInstructions }
      : {}),
    ...(options.toolResultMaxChars !== undefined
      ? { toolResultMaxChars: options.toolResultMaxChars }
      : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return {
    summary: withFileLists(text, branch.fileOperations),
    details: branch.fileOperations,
    fromHook: false,
  };
}

/**
 * A branch summarizer for `AgentSession.navigateTree(id, { summarize: true })`: the
 * agent's model summarizes the branch left with {@link summarizeAbandonedBranch}.
 */
export async function summarizeBranchWithModel(input: {
  session: Session;
  targetId: string | null;
  model: Model;
  customInstructions?: string;
  signal?: AbortSignal;
}): Promise<{ summary: string; details?: unknown } | undefined> {
  const summary = await summarizeAbandonedBranch({
    session: input.session,
    model: input.model,
    targetId: input.targetId,
    ...(input.customInstructions !== undefined
      ? { customInstructions: input.customInstructions }
      : {}),
    ...(input.signal ? { signal: input.signal } : {}),
  });
  return summary && { summary: summary.summary, details: summary.details };
}
