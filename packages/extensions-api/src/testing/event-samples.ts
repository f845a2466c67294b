import type { CompactionReason, SessionBeforeCompactEvent } from "../events.js";

/** A `session_before_compact` event with every field filled in, for the package's own tests. */
export function compactEvent(
  reason: CompactionReason,
  overrides: Partial<SessionBeforeCompactEvent> = {},
): SessionBeforeCompactEvent {
  return {
    type: "session_before_compact",
    reason,
    tokensBefore: 100,
    firstKeptEntryId: "e3",
    messagesToSummarize: [],
    preparation: {
      firstKeptEntryId: "e3",
      messagesToSummarize: [],
      turnPrefixMessages: [],
      splitTurn: false,
      tokensBefore: 100,
      fileOperations: { readFiles: [], modifiedFiles: [] },
    },
    branchEntries: [],
    previousCompactions: [],
    model: { provider: "openai", modelId: "gpt-4.1" },
    prompt: "Summarize the conversation.",
    ...overrides,
  };
}
