import { z } from "zod";

/** Why a run ended without success. */
export const agentFailureReasonSchema = z.enum([
  "aborted",
  "shutdown",
  "max_turns",
  "retries_exhausted",
  "no_targets",
  "context_overflow",
  /** The answers kept being empty, synthetic retries included. */
  "empty_answer",
  /** The answers kept being cut off at the output limit. */
  "truncated_answer",
  /** An output schema is set and the model never called the final-report tool. */
  "final_report_missing",
  /** The final reports kept failing validation, after repair and retries. */
  "final_report_invalid",
  /** The model kept calling tools in a forced final turn. */
  "tool_calls_in_final_turn",
  /** The model refused (a `refusal` stop reason) a run that must end in a final report. */
  "refused",
  /**
   * The final report was valid but the metadata blocks extensions require beside it
   * (`requireFinalMeta`) kept being missing or invalid.
   */
  "final_meta_missing",
]);
/** Why a run ended without success. */
export type AgentFailureReason = z.infer<typeof agentFailureReasonSchema>;

/**
 * What failing over did after a failed attempt: try the same target again, move to the next,
 * drop the target for the session, compact the context and try again (after a
 * `context_overflow`), or give up (the run fails with this attempt's error).
 */
export const failoverActionSchema = z.enum([
  "retry",
  "next_target",
  "drop_target",
  "compact",
  "give_up",
]);
/** What failing over did after a failed attempt (see {@link failoverActionSchema}). */
export type FailoverAction = z.infer<typeof failoverActionSchema>;

/** The model that served or tried a request. */
export const targetRefSchema = z.object({ provider: z.string(), model: z.string() });
/** The model that served or tried a request. */
export type TargetRef = z.infer<typeof targetRefSchema>;

/**
 * Why the runner forced a final turn: the user stopped the run, the context is full, or
 * the run reached its last allowed turn (`maxTurns`).
 */
export const finalTurnReasonSchema = z.enum(["stop", "context_limit", "max_turns"]);
/** Why the runner forced a final turn. */
export type FinalTurnReason = z.infer<typeof finalTurnReasonSchema>;

/** Why a compaction ran: on request, past the threshold before a request, after an overflow. */
export const compactionReasonSchema = z.enum(["manual", "threshold", "overflow"]);
/** Why a compaction ran. */
export type CompactionReason = z.infer<typeof compactionReasonSchema>;

/** The kind of problem that got an answer rejected, most important first. */
export const answerProblemKindSchema = z.enum([
  "truncated",
  "empty",
  "report_invalid",
  "report_missing",
  /** The report was accepted (and locked) but required metadata blocks were missing or invalid. */
  "meta_missing",
  "tools_unavailable",
]);
/** The kind of problem that got an answer rejected. */
export type AnswerProblemKind = z.infer<typeof answerProblemKindSchema>;
