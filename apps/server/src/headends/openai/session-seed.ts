import type { AppDeps } from "../../app-deps.js";
import { OpenAiParamError } from "./openai-errors.js";

/** A message of a client's history, reduced to what a session keeps. */
export interface SeedMessage {
  role: "system" | "user" | "assistant";
  text: string;
}

/**
 * Stores a client's history as a new session of the tenant: user and assistant messages as
 * message entries, system (and developer) messages as `openai.system` custom messages the
 * model reads. The last message (the prompt) is not stored here: the run stores it.
 * @returns the new session's id
 */
export async function seedSession(
  deps: AppDeps,
  tenantId: string,
  history: readonly SeedMessage[],
): Promise<string> {
  const session = await deps.store.create({ cwd: "/", tenant: tenantId });
  try {
    for (const message of history) {
      const timestamp = Date.now();
      if (message.role === "system") {
        await session.appendCustomMessageEntry("openai.system", message.text, false);
      } else if (message.role === "user") {
        await session.appendMessage({
          role: "user",
          content: [{ type: "text", text: message.text }],
          timestamp,
        });
      } else {
        await session.appendMessage({
          role: "assistant",
          content: [{ type: "text", text: message.text }],
          api: "openai-chat",
          provider: "client",
          model: "client",
          usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
          stopReason: "stop",
          timestamp,
        });
      }
    }
    return session.id;
  } finally {
    await session.close();
  }
}

/**
 * Splits a client's messages into the history and the prompt: the last message must be the
 * user's (what the agent answers).
 * @throws OpenAiParamError when the last message is not a user message or is empty
 */
export function splitPrompt(
  messages: readonly SeedMessage[],
  param: string,
): { history: SeedMessage[]; prompt: string } {
  const last = messages.at(-1);
  if (last?.role !== "user") {
    throw new OpenAiParamError(param, `the last item of ${param} must be a user message`);
  }
  if (!last || last.text.trim() === "") {
    throw new OpenAiParamError(param, "the last user message has no text");
  }
  return { history: messages.slice(0, -1), prompt: last.text };
}
