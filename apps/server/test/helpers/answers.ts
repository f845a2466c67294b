import type { ScriptedResponseInput } from "@arbor/providers/test";

type WireMessage = { role?: string; content?: unknown };

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((part) => (typeof part?.text === "string" ? part.text : "")).join("");
  }
  return "";
}

/** The latest user text of an OpenAI request body. */
export function lastUserText(body: Record<string, unknown>): string {
  const messages = (Array.isArray(body.messages) ? body.messages : []) as WireMessage[];
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role === "user") return textOf(messages[i]?.content);
  }
  return "";
}

/**
 * Answers by the prompt: `slow <n>` streams n characters one per 20 ms delta, `stream <n>`
 * streams n one-character deltas at once, anything else gets a short answer.
 */
export function answerByPrompt(body: Record<string, unknown>): ScriptedResponseInput {
  const prompt = lastUserText(body);
  const slow = /slow (\d+)/.exec(prompt);
  if (slow) {
    return {
      blocks: [{ type: "text", text: "s".repeat(Number(slow[1])) }],
      chunkSize: 1,
      delayMs: 20,
    };
  }
  const fast = /stream (\d+)/.exec(prompt);
  if (fast) return { blocks: [{ type: "text", text: "f".repeat(Number(fast[1])) }], chunkSize: 1 };
  return `answer to: ${prompt.slice(0, 40)}`;
}
