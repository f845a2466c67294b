import type OpenAI from "openai";
import type { ActivityFetch } from "../adapter/activity-fetch.js";
import { BlockBuilder } from "../adapter/block-builder.js";
import { classifyProviderError } from "../adapter/classify-error.js";
import { ErrorBodyResponse, isErrorBody } from "../adapter/error-body.js";
import { resolveModelInfo } from "../adapter/model-info.js";
import { StreamGuard } from "../adapter/stream-guard.js";
import { ModelConfigError } from "../errors.js";
import type { ModelInfo } from "../spec/catalogue.js";
import type { ModelEvent, StopReason, Usage } from "../spec/events.js";
import type { Model } from "../spec/model.js";
import type { ModelRequest } from "../spec/request.js";
import { openAIConnection } from "./openai-client.js";
import {
  applyPreset,
  OPENAI_COMPATIBLE_PRESETS,
  type OpenAICompatiblePreset,
  type OpenAICompatiblePresetName,
} from "./openai-presets.js";
import { toOpenAIRequest } from "./openai-request.js";

type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;

/** Options of {@link createOpenAIChatModel}. */
export interface OpenAIChatModelOptions {
  /** A catalogue entry, a catalogue key (`openai/gpt-4.1`) or a bare model id. */
  model: ModelInfo | string;
  /**
   * Required unless `client` is given or the preset is a local server; never read from
   * the environment.
   */
  apiKey?: string;
  /** An OpenAI-compatible endpoint, e.g. `http://127.0.0.1:11434/v1` for Ollama. */
  baseURL?: string;
  /**
   * A known OpenAI-compatible host ({@link OPENAI_COMPATIBLE_PRESETS}): its base URL (unless
   * `baseURL` is given), output-limit field, reasoning field, `top_k` support, and the
   * fields it refuses or names otherwise.
   */
  preset?: OpenAICompatiblePresetName;
  /** A ready client; Arbor then uses it as is (set its `maxRetries` to 0 yourself). */
  client?: OpenAI;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /** Fail with `timeout` when no data arrives for this long. Default 60 000 ms; 0 disables. */
  idleTimeoutMs?: number;
  /** Servers that predate `max_completion_tokens` want `max_tokens`. */
  maxTokensField?: "max_completion_tokens" | "max_tokens";
  /** A `fetch` to use instead of the global one. */
  fetch?: typeof fetch;
  /**
   * Send a request's `cache.key` as `prompt_cache_key`. Default: true for the OpenAI API
   * itself (no `baseURL` and no `client`), false otherwise: other servers may reject unknown fields.
   */
  promptCacheKey?: boolean;
  /**
   * Send a request's `topK` as `top_k`, a field of OpenAI-compatible servers (vLLM,
   * llama.cpp) that OpenAI itself does not have. Default: true with a `baseURL`, false
   * otherwise.
   */
  sendTopK?: boolean;
}

/**
 * Creates a {@link Model} that streams from the OpenAI Chat Completions API or any server
 * speaking it (Ollama, vLLM, llama.cpp server, OpenRouter). The SDK's own retries are off:
 * retry policy belongs to the runner.
 *
 * @example
 * ```ts
 * const model = createOpenAIChatModel({ model: "llama3.2", baseURL: "http://127.0.0.1:11434/v1", apiKey: "ollama" });
 * ```
 */
export function createOpenAIChatModel(input: OpenAIChatModelOptions): Model {
  const rules = input.preset === undefined ? undefined : presetOf(input.preset);
  const options: OpenAIChatModelOptions = rules
    ? {
        ...input,
        baseURL: input.baseURL ?? rules.baseURL,
        maxTokensField: input.maxTokensField ?? rules.maxTokensField,
        sendTopK: input.sendTopK ?? rules.topK,
        // A server of one's own takes any key; the client insists on one.
        ...(rules.local && input.apiKey === undefined ? { apiKey: "not-needed" } : {}),
      }
    : input;
  const info = resolveModelInfo(options.model, "openai-chat", "openai");
  const { client, activity, secrets } = openAIConnection(
    `createOpenAIChatModel(${info.id})`,
    options,
  );
  return openAIChatModelOver(client, activity, info, options, secrets, rules);
}

function presetOf(name: string): OpenAICompatiblePreset {
  if (!Object.hasOwn(OPENAI_COMPATIBLE_PRESETS, name)) {
    throw new ModelConfigError(
      `preset: there is no preset "${name}"; known: ${Object.keys(OPENAI_COMPATIBLE_PRESETS).join(", ")}`,
    );
  }
  return OPENAI_COMPATIBLE_PRESETS[name as OpenAICompatiblePresetName];
}

/**
 * A Chat Completions model over a built client (the OpenAI or the Azure one). `activity`
 * is the fetch wrapper the client was built with, so the idle timer sees raw bytes.
 */
export function openAIChatModelOver(
  client: OpenAI,
  activity: ActivityFetch | undefined,
  info: ModelInfo,
  options: Pick<
    OpenAIChatModelOptions,
    "idleTimeoutMs" | "maxTokensField" | "promptCacheKey" | "sendTopK" | "baseURL" | "client"
  >,
  secrets: (string | undefined)[],
  preset?: OpenAICompatiblePreset,
): Model {
  const idleMs = options.idleTimeoutMs ?? 60_000;
  const maxTokensField = options.maxTokensField ?? "max_completion_tokens";
  if (typeof client.apiKey === "string") secrets.push(client.apiKey);
  const promptCacheKey =
    options.promptCacheKey ?? (options.baseURL === undefined && options.client === undefined);
  const sendTopK = options.sendTopK ?? options.baseURL !== undefined;
  const settings: StreamSettings = {
    idleMs,
    maxTokensField,
    promptCacheKey,
    sendTopK,
    secrets,
    preset,
  };
  return { info, stream: (request) => streamOpenAI(client, activity, info, request, settings) };
}

const FINISH_REASONS: Readonly<Record<string, StopReason>> = {
  stop: "stop",
  length: "length",
  tool_calls: "tool_use",
  function_call: "tool_use",
  content_filter: "content_filter",
};

interface ReasoningDelta {
  reasoning_content?: string | null;
  reasoning?: string | null;
}

interface StreamSettings {
  idleMs: number;
  maxTokensField: "max_completion_tokens" | "max_tokens";
  /** Whether `cache.key` goes out as `prompt_cache_key`. */
  promptCacheKey: boolean;
  /** Whether `topK` goes out as `top_k`. */
  sendTopK: boolean;
  /** Removed from every error message. */
  secrets: readonly (string | undefined)[];
  /** The host's field rules, when a preset names it. */
  preset: OpenAICompatiblePreset | undefined;
}

async function* streamOpenAI(
  client: OpenAI,
  activity: ActivityFetch | undefined,
  info: ModelInfo,
  request: ModelRequest,
  settings: StreamSettings,
): AsyncGenerator<ModelEvent> {
  const guard = new StreamGuard(request.signal, settings.idleMs);
  const tracked = activity?.track(() => guard.touch());
  const blocks = new BlockBuilder();
  const out = blocks.out;
  let finish: string | undefined;
  let usage: Usage | undefined;
  let toolCount = 0;
  let refused = false;
  try {
    const built = toOpenAIRequest(
      info,
      request,
      settings.maxTokensField,
      settings.promptCacheKey,
      settings.sendTopK,
    );
    const body = settings.preset
      ? (applyPreset(
          built as unknown as Record<string, unknown>,
          settings.preset,
        ) as unknown as typeof built)
      : built;
    const stream = await client.chat.completions.create(body, {
      signal: guard.controller.signal,
      ...(tracked ? { headers: tracked.headers } : {}),
    });
    guard.touch();
    let started = false;
    for await (const chunk of stream as AsyncIterable<Chunk>) {
      guard.touch();
      if (!started) {
        // `start` means the model began answering, so a failure before any chunk is a bare error.
        started = true;
        yield { type: "start", model: info.id };
      }
      // Compatible servers (vLLM, Mistral) stream a flat error object as a data line.
      if (isErrorBody(chunk)) throw new ErrorBodyResponse(200, chunk);
      if (chunk.usage) usage = toUsage(chunk.usage);
      const choice = chunk.choices?.[0];
      if (choice) {
        const delta = choice.delta as Chunk["choices"][number]["delta"] & ReasoningDelta;
        if (delta) {
          const reasoning = delta.reasoning_content ?? delta.reasoning;
          if (reasoning) blocks.thinking(reasoning);
          if (delta.content) blocks.text(delta.content);
          if (delta.refusal) {
            // A refusal is the answer's text; the stop reason says what it is.
            refused = true;
            blocks.text(delta.refusal);
          }
          if (delta.tool_calls) {
            for (const call of delta.tool_calls) {
              if (startsToolCall(blocks, call)) {
                const invalid = blocks.close();
                if (invalid) {
                  for (const pending of out) yield pending;
                  out.length = 0;
                  yield invalid;
                  return;
                }
                blocks.openTool(
                  { index: call.index as number | undefined, id: call.id || undefined },
                  call.id || `call_${toolCount}`,
                  call.function?.name ?? "",
                );
                toolCount += 1;
              }
              const args = call.function?.arguments;
              if (args) blocks.toolArguments(args);
            }
          }
        }
        if (choice.finish_reason) finish = choice.finish_reason;
      }
      for (const pending of out) yield pending;
      out.length = 0;
    }
    const cut = guard.outcomeEvent();
    if (cut) {
      yield cut;
      return;
    }
    const invalid = blocks.close();
    for (const pending of out) yield pending;
    out.length = 0;
    if (invalid) {
      yield invalid;
      return;
    }
    if (finish === undefined) {
      yield {
        type: "error",
        kind: "network_error",
        message: "the stream ended before the model finished (no finish_reason)",
      };
      return;
    }
    yield { type: "usage", usage: usage ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } };
    const reason = FINISH_REASONS[finish] ?? "stop";
    yield { type: "done", reason: refused && reason === "stop" ? "refusal" : reason };
  } catch (error) {
    for (const pending of out) yield pending;
    out.length = 0;
    yield guard.outcomeEvent() ?? classifyProviderError(error, { secrets: settings.secrets });
  } finally {
    guard.dispose();
    tracked?.release();
  }
}

type ToolCallDelta = NonNullable<Chunk["choices"][number]["delta"]["tool_calls"]>[number];

/**
 * True when a tool-call fragment begins a new call. A fragment with an id other than the
 * open call's is a new call even at the same `index` (Ollama sends every parallel call at
 * index 0); without an id, a new `index` is a new call; a fragment with neither continues
 * the open call.
 */
function startsToolCall(blocks: BlockBuilder, call: ToolCallDelta): boolean {
  const open = blocks.openToolKey() as { index?: number; id?: string } | undefined;
  if (open === undefined) return true;
  const id = call.id || undefined;
  const index = call.index as number | undefined;
  if (id !== undefined) return id !== open.id;
  return index !== undefined && open.index !== undefined && index !== open.index;
}

function toUsage(usage: NonNullable<Chunk["usage"]>): Usage {
  const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    input: Math.max(0, usage.prompt_tokens - cached),
    output: usage.completion_tokens,
    cacheRead: cached,
    cacheWrite: 0,
  };
}
