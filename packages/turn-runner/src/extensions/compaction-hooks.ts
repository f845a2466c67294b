import type { ExtensionRunner } from "@arbor/extensions-api";
import type { CompactionHooks } from "../compaction/index.js";
import { emitIsolated } from "./isolated-emit.js";

/**
 * The compaction hooks that put extensions in the loop: `session_before_compact` before
 * the model is asked, with the preparation, the branch, the previous compactions (newest
 * first), the model and the summarizing prompt (a cancel cancels; a supplied summary is
 * stored instead of the model's, with its details; a returned prompt replaces the
 * runner's), and `session_compact` once the compaction entry is stored.
 */
export function extensionCompactionHooks(
  runner: ExtensionRunner,
  signal?: AbortSignal,
): Required<CompactionHooks> {
  const emitOptions = signal ? { signal } : {};
  return {
    beforeCompact: async (preparation, context) => {
      const { reason, customInstructions, ...plan } = preparation;
      const outcome = await emitIsolated(
        runner,
        {
          type: "session_before_compact",
          reason,
          tokensBefore: plan.tokensBefore,
          firstKeptEntryId: plan.firstKeptEntryId,
          messagesToSummarize: plan.messagesToSummarize,
          preparation: plan,
          branchEntries: context.branchEntries,
          previousCompactions: context.previousCompactions,
          model: context.model,
          ...(customInstructions === undefined ? {} : { customInstructions }),
          prompt: context.prompt,
        },
        emitOptions,
      );
      if (outcome.cancelled) return { cancel: true };
      const prompt = outcome.prompt === undefined ? {} : { prompt: outcome.prompt };
      if (outcome.summary === undefined) return outcome.prompt === undefined ? undefined : prompt;
      return {
        summary: outcome.summary,
        ...(outcome.details === undefined ? {} : { details: outcome.details }),
        ...prompt,
      };
    },
    afterCompact: async (result) => {
      await emitIsolated(
        runner,
        {
          type: "session_compact",
          entryId: result.entryId,
          summary: result.summary,
          firstKeptEntryId: result.firstKeptEntryId,
          tokensBefore: result.tokensBefore,
          fromExtension: result.fromHook,
        },
        emitOptions,
      );
    },
  };
}
