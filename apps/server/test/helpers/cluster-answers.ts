import type { ScriptedResponseInput } from "@arbor/providers/test";
import { answerByPrompt, lastUserText } from "./answers.js";

/**
 * {@link answerByPrompt}, plus `backoff`: a 429 asking for a long wait, so the run sits in
 * the provider backoff (a later call of the same prompt answers normally); and
 * `tool wait <ms>`: a call of the `wait` tool, answered once the tool's result comes back.
 */
export function clusterAnswers(): (body: Record<string, unknown>) => ScriptedResponseInput {
  const seen = new Set<string>();
  return (body) => {
    const prompt = lastUserText(body);
    if (/backoff/.test(prompt) && !seen.has(prompt)) {
      seen.add(prompt);
      return { error: { kind: "rate_limit", retryAfterMs: 30_000, afterDeltas: 0 } };
    }
    const messages = (Array.isArray(body.messages) ? body.messages : []) as Array<{
      role?: string;
    }>;
    const wait = /tool wait (\d+)/.exec(prompt);
    if (wait && messages.at(-1)?.role !== "tool") {
      return {
        blocks: [{ type: "toolCall", name: "wait", arguments: { ms: Number(wait[1]) } }],
      };
    }
    if (messages.at(-1)?.role === "tool") return "the tool is done";
    return answerByPrompt(body);
  };
}
