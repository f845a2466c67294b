import type { AttemptOutcome } from "./model-attempt.js";

/** What a model attempt's span records when the attempt ends. */
export function attemptOutcome(outcome: AttemptOutcome): {
  error?: string;
  attributes: Record<string, string | number | string[]>;
} {
  const attributes = {
    "arbor.attempt.outcome": outcome.kind,
    "gen_ai.usage.input_tokens": outcome.usage.input,
    "gen_ai.usage.output_tokens": outcome.usage.output,
    ...(outcome.kind === "done" ? { "gen_ai.response.finish_reasons": [outcome.stopReason] } : {}),
  };
  if (outcome.kind === "error") return { error: outcome.error.kind, attributes };
  if (outcome.kind === "aborted") return { error: "aborted", attributes };
  return { attributes };
}
