import type { Context } from "hono";
import type { AppDeps } from "../../app-deps.js";
import { ApiError, toApiError } from "../../errors/index.js";
import type { ServerEnv } from "../../http/server-env.js";
import type { StreamCounter } from "../../http/stream-counter.js";
import { type HeadendRunEnd, RunFollower, startHeadendRun } from "../headend-run.js";
import { headendStream, takeStreamPlace } from "../headend-stream.js";
import { modelNotFound, openAiErrorBody } from "./openai-errors.js";
import {
  type ChatMessage,
  chatCompletionRequestSchema,
  parseOpenAiBody,
  textOf,
} from "./openai-requests.js";
import { type SeedMessage, seedSession, splitPrompt } from "./session-seed.js";

/** The header naming the session a request continues, and the one an answer names. */
export const SESSION_HEADER = "X-Arbor-Session";
/** The header asking for the agent's tool activity as `reasoning_content`. */
export const ACTIVITY_HEADER = "X-Arbor-Tool-Activity";

/** OpenAI's usage object from a run's token counts. */
function chatUsage(usage: HeadendRunEnd["usage"]) {
  const prompt = usage.input + usage.cacheRead + usage.cacheWrite;
  return {
    prompt_tokens: prompt,
    completion_tokens: usage.output,
    total_tokens: prompt + usage.output,
    prompt_tokens_details: { cached_tokens: usage.cacheRead },
  };
}

/** The client's messages as the session keeps them (tool messages are refused). */
function seedMessages(messages: readonly ChatMessage[]): SeedMessage[] {
  return messages.map((message, index) => {
    const text = textOf(message.content, `messages.${index}.content`);
    if (message.role === "tool" || message.role === "function") {
      throw new ApiError(
        400,
        "unsupported_role",
        `messages.${index}: the agent runs its own tools; send user, assistant and system messages`,
      );
    }
    const role = message.role === "developer" ? "system" : message.role;
    return { role, text };
  });
}

/** Whether a flag came as a header or a metadata value. */
function flagged(value: string | undefined): boolean {
  return value !== undefined && /^(1|true|yes|reasoning)$/i.test(value);
}

/**
 * `POST /v1/chat/completions`: runs the agent named by `model` on a session (the one named by
 * `X-Arbor-Session` / `metadata.arbor_session`, or a new one seeded with the history) and
 * answers as OpenAI does, streamed or not.
 */
export async function chatCompletions(
  c: Context<ServerEnv>,
  deps: AppDeps,
  streams: StreamCounter,
): Promise<Response> {
  const body = parseOpenAiBody(chatCompletionRequestSchema, await c.req.json());
  const owner = c.get("owner");
  if (!deps.agents.has(body.model)) throw modelNotFound(body.model);
  const messages = seedMessages(body.messages);
  const { history, prompt } = splitPrompt(messages, "messages");
  const named = c.req.header(SESSION_HEADER) ?? body.metadata?.arbor_session ?? undefined;
  const activity = flagged(c.req.header(ACTIVITY_HEADER) ?? body.metadata?.arbor_tool_activity);
  const streaming = body.stream === true;
  if (streaming) takeStreamPlace(streams, owner.keyId);
  let follower: RunFollower;
  let created: number;
  try {
    // Continuing a session: the client sends only the new message; the session has the rest.
    const sessionId = named ?? (await seedSession(deps, owner.tenantId, history));
    const record = await startHeadendRun(deps, {
      tenantId: owner.tenantId,
      sessionId,
      agent: body.model,
      prompt,
    });
    created = Math.floor(Date.parse(record.createdAt) / 1000);
    follower = new RunFollower(deps, record.id, sessionId);
  } catch (error) {
    if (streaming) streams.release(owner.keyId);
    throw error;
  }
  c.header(SESSION_HEADER, follower.sessionId);
  const id = `chatcmpl-${follower.runId}`;
  if (!streaming) {
    const end = await follower.result(c.req.raw.signal);
    if (!end) throw new ApiError(408, "client_closed", "the request ended before the run");
    if (!end.ok) throw runFailed(end);
    return c.json({
      id,
      object: "chat.completion",
      created,
      model: body.model,
      system_fingerprint: null,
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: end.text, refusal: null, annotations: [] },
          logprobs: null,
          finish_reason: "stop",
        },
      ],
      usage: chatUsage(end.usage),
    });
  }
  const includeUsage = body.stream_options?.include_usage === true;
  const chunk = (choices: unknown[], usage: unknown = null) =>
    JSON.stringify({
      id,
      object: "chat.completion.chunk",
      created,
      model: body.model,
      system_fingerprint: null,
      choices,
      ...(includeUsage ? { usage } : {}),
    });
  const delta = (fields: Record<string, unknown>, finish: string | null = null) =>
    chunk([{ index: 0, delta: fields, logprobs: null, finish_reason: finish }]);
  return headendStream(c, streams, async (stream, signal) => {
    await stream.writeSSE({ data: delta({ role: "assistant", content: "", refusal: null }) });
    for await (const item of follower.follow(signal)) {
      if (item.kind === "text") await stream.writeSSE({ data: delta({ content: item.delta }) });
      else if (item.kind === "ui_request") continue;
      else if (item.kind !== "end") {
        if (activity) await stream.writeSSE({ data: delta({ reasoning_content: item.delta }) });
      } else if (!item.end.ok) {
        await stream.writeSSE({ data: JSON.stringify(openAiErrorBody(runFailed(item.end))) });
        return;
      } else {
        await stream.writeSSE({ data: delta({}, "stop") });
        if (includeUsage) await stream.writeSSE({ data: chunk([], chatUsage(item.end.usage)) });
        await stream.writeSSE({ data: "[DONE]" });
      }
    }
  });
}

/** The error a failed run answers with (500 `server_error`: the client cannot fix it). */
export function runFailed(end: HeadendRunEnd): ApiError {
  const failure = end.failure ?? { code: "run_failed", message: "the run failed" };
  return toApiError(
    new ApiError(500, failure.code, `the agent did not answer: ${failure.message}`),
  );
}
