import { z } from "zod";

/**
 * What the runner persists each time a rule is injected, so that a reloaded session
 * applies the repeat policy and the budgets exactly as if the process had never stopped.
 * Unknown fields survive a round trip.
 */
export const ttsrInjectionRecordSchema = z.looseObject({
  /** The rule's name. */
  rule: z.string().min(1),
  /** The turn the rule fired in (0 for the first turn). */
  turn: z.number().int().nonnegative(),
  /** Session-wide sequence number of the interrupt; rules injected together share it. */
  interrupt: z.number().int().nonnegative(),
});

/** One persisted injection of one rule. */
export type TtsrInjectionRecord = z.infer<typeof ttsrInjectionRecordSchema>;
