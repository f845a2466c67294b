import type { ScriptedResponseInput } from "@arbor/providers/test";
import { answerByPrompt, lastUserText } from "./answers.js";

/**
 * {@link answerByPrompt}, plus `backoff`: a 429 asking for a long wait, so the run sits in
 * the provider backoff (a later call of the same prompt answers normally).
 */
export function clusterAnswers(): (body: Record<string, unknown>) => ScriptedResponseInput {
  const seen = new Set<string>();
  return (body) => {
    const prompt = lastUserText(body);
    if (/backoff/.test(prompt) && !seen.has(prompt)) {
      seen.add(prompt);
      return { error: { kind: "rate_limit", retryAfterMs: 30_000, afterDeltas: 0 } };
    }
    return answerByPrompt(body);
  };
}
