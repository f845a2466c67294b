import type { ExtensionRunner } from "@arbor/extensions-api";
import type { CompactionHooks } from "../compaction/index.js";
import { emitIsolated } from "./isolated-emit.js";

/**
 * The compaction hooks that put extensions in the loop: `session_before_compact` before
 * the model is asked (a cancel cancels; a supplied summary is stored instead of the
 * model's, with its details), and `session_compact` once the compaction entry is stored.
 */
export function extensionCompactionHooks(
  runner: ExtensionRunner,
  signal?: AbortSignal,
): Required<CompactionHooks> {
  const emitOptions = signal ? { signal } : {};
  return {
    beforeCompact: async (preparation) => {
      const outcome = await emitIsolated(
        runner,
        {
          type: "session_before_compact",
          reason: preparation.reason,
          tokensBefore: preparation.tokensBefore,
          firstKeptEntryId: preparation.firstKeptEntryId,
          messagesToSummarize: preparation.messagesToSummarize,
          ...(preparation.customInstructions === undefined
            ? {}
            : { customInstructions: preparation.customInstructions }),
        },
        emitOptions,
      );
      if (outcome.cancelled) return { cancel: true };
      if (outcome.summary === undefined) return undefined;
      return {
        summary: outcome.summary,
        ...(outcome.details === undefined ? {} : { details: outcome.details }),
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
