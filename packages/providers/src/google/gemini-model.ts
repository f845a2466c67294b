import { type GenerateContentResponse, GoogleGenAI } from "@google/genai";
import { ActivityFetch } from "../adapter/activity-fetch.js";
import { BlockBuilder } from "../adapter/block-builder.js";
import { classifyProviderError } from "../adapter/classify-error.js";
import { encodeGeminiSignature } from "../adapter/gemini-signature.js";
import { resolveModelInfo } from "../adapter/model-info.js";
import { StreamGuard } from "../adapter/stream-guard.js";
import { ModelConfigError } from "../errors.js";
import { adapterSecrets } from "../secrets/adapter-secrets.js";
import type { ModelInfo } from "../spec/catalogue.js";
import type { ModelErrorEvent, ModelEvent, StopReason, Usage } from "../spec/events.js";
import type { Model } from "../spec/model.js";
import type { ModelRequest } from "../spec/request.js";
import { classifyGeminiError } from "./gemini-errors.js";
import { GENERATED_CALL_ID } from "./gemini-ids.js";
import { toGeminiRequest } from "./gemini-request.js";

/** Options of {@link createGeminiModel}. */
export interface GeminiModelOptions {
  /** A catalogue entry, a catalogue key (`google/gemini-2.5-flash`) or a bare model id. */
  model: ModelInfo | string;
  /** The Gemini API key; never read from the environment. */
  apiKey: string;
  /** An endpoint other than Google's (the origin; the SDK adds `/v1beta/models/…`). */
  baseURL?: string;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /** Fail with `timeout` when no data arrives for this long. Default 60 000 ms; 0 disables. */
  idleTimeoutMs?: number;
  /** A `fetch` to use instead of the global one. */
  fetch?: typeof fetch;
}

const FINISH_REASONS: Readonly<Record<string, StopReason>> = {
  STOP: "stop",
  MAX_TOKENS: "length",
  SAFETY: "content_filter",
  RECITATION: "content_filter",
  BLOCKLIST: "content_filter",
  PROHIBITED_CONTENT: "content_filter",
  SPII: "content_filter",
  IMAGE_SAFETY: "content_filter",
  IMAGE_PROHIBITED_CONTENT: "content_filter",
  LANGUAGE: "content_filter",
};

/** Finish reasons that mean the model produced something Arbor cannot use. */
const INVALID_FINISHES = new Set(["MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL"]);

/**
 * Creates a {@link Model} that streams from the Gemini API through `@google/genai`
 * (`generateContentStream`, `alt=sse`). Thought summaries arrive as thinking; thought
 * signatures are kept on thinking parts and go back on the parts they came with. The
 * SDK's retries and automatic function calling are off.
 *
 * @example
 * ```ts
 * const model = createGeminiModel({ model: "google/gemini-2.5-flash", apiKey: key });
 * ```
 */
export function createGeminiModel(options: GeminiModelOptions): Model {
  const info = resolveModelInfo(options.model, "google-gemini", "google");
  if (typeof options.apiKey !== "string") {
    throw new ModelConfigError(
      `createGeminiModel(${info.id}) needs an apiKey; pass one explicitly (Arbor never reads the environment)`,
    );
  }
  const secrets = adapterSecrets(`createGeminiModel(${info.id})`, options);
  const activity = new ActivityFetch(options.fetch);
  const client = new GoogleGenAI({
    apiKey: options.apiKey,
    httpOptions: {
      ...(options.baseURL ? { baseUrl: options.baseURL } : {}),
      ...(options.headers ? { headers: options.headers } : {}),
      fetch: activity.fetch,
    },
  });
  const idleMs = options.idleTimeoutMs ?? 60_000;
  return {
    info,
    stream: (request) => streamGemini(client, activity, info, request, idleMs, secrets),
  };
}

async function* streamGemini(
  client: GoogleGenAI,
  activity: ActivityFetch,
  info: ModelInfo,
  request: ModelRequest,
  idleMs: number,
  secrets: readonly (string | undefined)[],
): AsyncGenerator<ModelEvent> {
  const guard = new StreamGuard(request.signal, idleMs);
  const tracked = activity.track(() => guard.touch());
  const blocks = new BlockBuilder();
  const out = blocks.out;
  const flush = function* () {
    for (const pending of out) yield pending;
    out.length = 0;
  };
  let toolCalls = 0;
  try {
    if (guard.outcome !== undefined) throw new Error("aborted before the request");
    const params = toGeminiRequest(info, request, guard.controller.signal);
    params.config = {
      ...params.config,
      httpOptions: { headers: tracked.headers },
    };
    const stream = await client.models.generateContentStream(params);
    guard.touch();
    let started = false;
    let finish: string | undefined;
    let blocked: string | undefined;
    let usage: Usage | undefined;
    let failure: ModelErrorEvent | undefined;
    for await (const chunk of stream as AsyncIterable<GenerateContentResponse>) {
      guard.touch();
      if (!started) {
        started = true;
        yield { type: "start", model: info.id };
      }
      if (chunk.usageMetadata) usage = toUsage(chunk.usageMetadata);
      if (chunk.promptFeedback?.blockReason) blocked = chunk.promptFeedback.blockReason;
      const candidate = chunk.candidates?.[0];
      for (const part of candidate?.content?.parts ?? []) {
        if (part.thought) {
          if (part.text) blocks.thinking(part.text);
          else blocks.openThinking();
          if (part.thoughtSignature) blocks.signature(encodeGeminiSignature(part.thoughtSignature));
          continue;
        }
        if (part.functionCall) {
          if (part.thoughtSignature) attachSignature(blocks, part.thoughtSignature);
          const invalid = blocks.close();
          if (invalid) {
            failure = invalid;
            break;
          }
          const call = part.functionCall;
          const id = call.id || `${GENERATED_CALL_ID}${Date.now().toString(36)}_${toolCalls}`;
          blocks.openTool(id, id, call.name ?? "");
          toolCalls += 1;
          const args = call.args ?? {};
          if (Object.keys(args).length > 0) blocks.toolArguments(JSON.stringify(args));
          const bad = blocks.close();
          if (bad) failure = bad;
          continue;
        }
        if (typeof part.text === "string") {
          if (part.thoughtSignature && part.text === "") {
            // A signature alone closes the answer: it belongs to the text before it.
            blocks.close();
            blocks.openThinking();
            blocks.signature(encodeGeminiSignature(part.thoughtSignature));
            blocks.close();
            continue;
          }
          if (part.thoughtSignature) attachSignature(blocks, part.thoughtSignature);
          blocks.text(part.text);
        }
      }
      if (candidate?.finishReason) finish = candidate.finishReason;
      yield* flush();
      if (failure) break;
    }
    const cut = guard.outcomeEvent();
    if (cut) {
      yield cut;
      return;
    }
    if (failure) {
      yield failure;
      return;
    }
    const invalid = blocks.close();
    yield* flush();
    if (invalid) {
      yield invalid;
      return;
    }
    if (blocked !== undefined && finish === undefined) {
      yield { type: "usage", usage: usage ?? zeroUsage() };
      yield { type: "done", reason: "content_filter" };
      return;
    }
    if (finish === undefined) {
      yield {
        type: "error",
        kind: "network_error",
        message: "the stream ended before the model finished (no finishReason)",
      };
      return;
    }
    if (INVALID_FINISHES.has(finish)) {
      yield {
        type: "error",
        kind: "invalid_response",
        message: `Gemini stopped with ${finish}: the model produced a function call it could not form`,
      };
      return;
    }
    yield { type: "usage", usage: usage ?? zeroUsage() };
    const reason = FINISH_REASONS[finish] ?? "stop";
    yield { type: "done", reason: reason === "stop" && toolCalls > 0 ? "tool_use" : reason };
  } catch (error) {
    yield* flush();
    yield guard.outcomeEvent() ?? classify(error, secrets);
  } finally {
    // The SDK's stream does not cancel its body when a consumer stops reading: cut it here.
    guard.controller.abort();
    guard.dispose();
    tracked.release();
  }
}

/**
 * Puts a signature that came on a text or function call part in front of it: on the
 * open thinking block when that has none (the thoughts that led to the part), else on an
 * empty thinking block of its own.
 */
function attachSignature(blocks: BlockBuilder, signature: string): void {
  if (!blocks.isOpenUnsignedThinking()) {
    blocks.close();
    blocks.openThinking();
  }
  blocks.signature(encodeGeminiSignature(signature));
  blocks.close();
}

function classify(error: unknown, secrets: readonly (string | undefined)[]): ModelErrorEvent {
  const shaped = error as { name?: unknown; status?: unknown; message?: unknown };
  if (shaped?.name === "ApiError" && typeof shaped.message === "string") {
    const status = typeof shaped.status === "number" ? shaped.status : undefined;
    const event = classifyGeminiError(status, shaped.message, secrets);
    if (event) return event;
  }
  if (shaped?.name === "Error" && /Incomplete JSON segment/.test(String(shaped.message))) {
    return { type: "error", kind: "network_error", message: String(shaped.message) };
  }
  return classifyProviderError(error, { secrets });
}

const zeroUsage = (): Usage => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });

function toUsage(usage: NonNullable<GenerateContentResponse["usageMetadata"]>): Usage {
  const cached = usage.cachedContentTokenCount ?? 0;
  const thoughts = usage.thoughtsTokenCount ?? 0;
  return {
    input: Math.max(0, (usage.promptTokenCount ?? 0) - cached),
    output: (usage.candidatesTokenCount ?? 0) + thoughts,
    cacheRead: cached,
    cacheWrite: 0,
    ...(thoughts > 0 ? { reasoning: thoughts } : {}),
  };
}
