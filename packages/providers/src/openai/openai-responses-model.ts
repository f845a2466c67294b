import type OpenAI from "openai";
import type { ActivityFetch } from "../adapter/activity-fetch.js";
import { BlockBuilder } from "../adapter/block-builder.js";
import { classifyProviderError } from "../adapter/classify-error.js";
import { resolveModelInfo } from "../adapter/model-info.js";
import { encodeResponsesReasoning } from "../adapter/responses-reasoning.js";
import { retryAfterFromText } from "../adapter/retry-after.js";
import { StreamGuard } from "../adapter/stream-guard.js";
import { classifyFailure } from "../error-kind.js";
import { redactSecrets } from "../secrets/redact-secrets.js";
import type { ModelInfo } from "../spec/catalogue.js";
import type { ModelErrorEvent, ModelEvent, StopReason, Usage } from "../spec/events.js";
import type { Model } from "../spec/model.js";
import type { ModelRequest } from "../spec/request.js";
import { openAIConnection } from "./openai-client.js";
import { type ResponsesRequestSettings, toResponsesRequest } from "./openai-responses-request.js";

type StreamEvent = OpenAI.Responses.ResponseStreamEvent;
type Response = OpenAI.Responses.Response;

/** Options of {@link createOpenAIResponsesModel}. */
export interface OpenAIResponsesModelOptions {
  /** A catalogue entry, a catalogue key (`openai/gpt-5`) or a bare model id. */
  model: ModelInfo | string;
  /** Required unless `client` is given; never read from the environment. */
  apiKey?: string;
  /** A Responses-compatible endpoint other than OpenAI's (`…/v1`). */
  baseURL?: string;
  /** A ready client (also an `AzureOpenAI`); Arbor uses it as is (set `maxRetries: 0` yourself). */
  client?: OpenAI;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /** Fail with `timeout` when no data arrives for this long. Default 60 000 ms; 0 disables. */
  idleTimeoutMs?: number;
  /** A `fetch` to use instead of the global one. */
  fetch?: typeof fetch;
  /**
   * Ask for `reasoning.encrypted_content` so reasoning goes back on the next request
   * without server-side storage. Default: the model's `reasoning` capability (models
   * without reasoning refuse the field).
   */
  encryptedReasoning?: boolean;
  /**
   * Chain calls by `previous_response_id` instead of sending the whole conversation: the
   * responses are stored (`store: true`), and a request whose `cache.key` matches an earlier
   * call of this model, with that call's messages and answer as its prefix, sends only the
   * new messages. Default false: stateless, `store: false`.
   */
  previousResponseId?: boolean;
  /**
   * Send a request's `cache.key` as `prompt_cache_key`. Default: true for the OpenAI API
   * itself (no `baseURL` and no `client`).
   */
  promptCacheKey?: boolean;
}

/** The most conversations whose last response id a chaining model remembers. */
export const RESPONSES_CHAIN_LIMIT = 256;

/**
 * Creates a {@link Model} that streams from the OpenAI Responses API
 * (`responses.create({ stream: true })`). Stateless by default: `store: false`, and the
 * encrypted reasoning of each answer is kept on its thinking parts and sent back with the
 * conversation. The SDK's own retries are off: retry policy belongs to the runner.
 *
 * @example
 * ```ts
 * const model = createOpenAIResponsesModel({ model: "openai/gpt-5", apiKey: key });
 * ```
 */
export function createOpenAIResponsesModel(options: OpenAIResponsesModelOptions): Model {
  const info = resolveModelInfo(options.model, "openai-responses", "openai");
  const { client, activity, secrets } = openAIConnection(
    `createOpenAIResponsesModel(${info.id})`,
    options,
  );
  return openAIResponsesModelOver(client, activity, info, options, secrets);
}

/**
 * A Responses model over a built client (the OpenAI or the Azure one). `activity` is the
 * fetch wrapper the client was built with, so the idle timer sees raw bytes.
 */
export function openAIResponsesModelOver(
  client: OpenAI,
  activity: ActivityFetch | undefined,
  info: ModelInfo,
  options: Pick<
    OpenAIResponsesModelOptions,
    | "idleTimeoutMs"
    | "encryptedReasoning"
    | "previousResponseId"
    | "promptCacheKey"
    | "baseURL"
    | "client"
  >,
  secrets: (string | undefined)[],
): Model {
  if (typeof client.apiKey === "string") secrets.push(client.apiKey);
  const settings: ResponsesSettings = {
    idleMs: options.idleTimeoutMs ?? 60_000,
    secrets,
    encryptedReasoning: options.encryptedReasoning ?? info.capabilities.reasoning,
    promptCacheKey:
      options.promptCacheKey ?? (options.baseURL === undefined && options.client === undefined),
    chain: options.previousResponseId ? new ResponseChain() : undefined,
  };
  return { info, stream: (request) => streamResponses(client, activity, info, request, settings) };
}

interface ResponsesSettings {
  idleMs: number;
  secrets: (string | undefined)[];
  encryptedReasoning: boolean;
  promptCacheKey: boolean;
  chain: ResponseChain | undefined;
}

/**
 * The last stored response of each conversation (by `cache.key`), with how many messages
 * it answered, so the next call can send only what is new. Oldest conversations are
 * forgotten past {@link RESPONSES_CHAIN_LIMIT}.
 */
class ResponseChain {
  readonly #last = new Map<string, { id: string; messages: number; digest: string }>();

  settingsFor(
    request: ModelRequest,
  ): Pick<ResponsesRequestSettings, "previousResponseId" | "skipMessages"> {
    const key = request.cache?.key;
    const last = key === undefined ? undefined : this.#last.get(key);
    // The stored response answered `messages` messages; its answer is the next one.
    if (last === undefined || request.messages.length <= last.messages + 1) return {};
    if (request.messages[last.messages]?.role !== "assistant") return {};
    // Another branch of the conversation (same length, other messages) starts afresh.
    if (digestOf(request, last.messages) !== last.digest) return {};
    return { previousResponseId: last.id, skipMessages: last.messages + 1 };
  }

  remember(request: ModelRequest, responseId: string): void {
    const key = request.cache?.key;
    if (key === undefined) return;
    const messages = request.messages.length;
    this.#last.delete(key);
    this.#last.set(key, { id: responseId, messages, digest: digestOf(request, messages) });
    if (this.#last.size > RESPONSES_CHAIN_LIMIT) {
      const oldest = this.#last.keys().next().value;
      if (oldest !== undefined) this.#last.delete(oldest);
    }
  }
}

/**
 * A digest of the system prompt and the first `count` messages (two 32-bit FNV-1a hashes
 * with different seeds, and the text's length): it tells branches of one conversation
 * apart without keeping their text, and needs no Node built-in.
 */
function digestOf(request: ModelRequest, count: number): string {
  const text = JSON.stringify([request.system ?? null, request.messages.slice(0, count)]);
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x5bd1e995);
  }
  return `${text.length}:${(a >>> 0).toString(36)}:${(b >>> 0).toString(36)}`;
}

const INCOMPLETE_REASONS: Readonly<Record<string, StopReason>> = {
  max_output_tokens: "length",
  content_filter: "content_filter",
};

async function* streamResponses(
  client: OpenAI,
  activity: ActivityFetch | undefined,
  info: ModelInfo,
  request: ModelRequest,
  settings: ResponsesSettings,
): AsyncGenerator<ModelEvent> {
  const guard = new StreamGuard(request.signal, settings.idleMs);
  const tracked = activity?.track(() => guard.touch());
  const blocks = new BlockBuilder();
  const out = blocks.out;
  const flush = function* () {
    for (const pending of out) yield pending;
    out.length = 0;
  };
  try {
    const chained = settings.chain?.settingsFor(request) ?? {};
    const body = toResponsesRequest(info, request, {
      store: settings.chain !== undefined,
      encryptedReasoning: settings.encryptedReasoning,
      promptCacheKey: settings.promptCacheKey,
      ...chained,
    });
    const stream = await client.responses.create(body, {
      signal: guard.controller.signal,
      ...(tracked ? { headers: tracked.headers } : {}),
    });
    guard.touch();
    let started = false;
    let refused = false;
    let toolCalls = 0;
    /** Whether the open tool call got its arguments as deltas (else the item's `arguments`). */
    let streamedArguments = false;
    let finished: Response | undefined;
    let failure: ModelErrorEvent | undefined;
    for await (const event of stream as AsyncIterable<StreamEvent>) {
      guard.touch();
      if (!started) {
        started = true;
        yield { type: "start", model: info.id };
      }
      switch (event.type) {
        case "response.output_item.added": {
          const item = event.item;
          if (item.type === "reasoning") {
            blocks.close();
            blocks.openThinking();
          } else if (item.type === "function_call") {
            const invalid = blocks.close();
            if (invalid) {
              failure = invalid;
              break;
            }
            blocks.openTool(item.id ?? item.call_id, item.call_id, item.name);
            streamedArguments = false;
            toolCalls += 1;
          }
          break;
        }
        case "response.reasoning_summary_part.added":
          // Summary parts of one reasoning item read as paragraphs of one thinking block.
          if (event.summary_index > 0) blocks.thinking("\n\n");
          break;
        case "response.reasoning_summary_text.delta":
          blocks.thinking(event.delta);
          break;
        case "response.output_text.delta":
          blocks.text(event.delta);
          break;
        case "response.refusal.delta":
          // A refusal is the answer's text; the stop reason says what it is.
          refused = true;
          blocks.text(event.delta);
          break;
        case "response.function_call_arguments.delta":
          streamedArguments = true;
          blocks.toolArguments(event.delta);
          break;
        case "response.output_item.done": {
          const item = event.item;
          if (item.type === "reasoning") {
            blocks.openThinking();
            blocks.signature(
              encodeResponsesReasoning({
                id: item.id,
                ...(item.encrypted_content ? { encryptedContent: item.encrypted_content } : {}),
              }),
            );
            blocks.close();
          } else if (item.type === "function_call") {
            if (!streamedArguments) blocks.toolArguments(item.arguments);
            const invalid = blocks.close();
            if (invalid) failure = invalid;
          } else {
            blocks.close();
          }
          break;
        }
        case "response.completed":
        case "response.incomplete":
          finished = event.response;
          break;
        case "response.failed":
          failure = failureOf(event.response.error, settings.secrets);
          break;
        case "error":
          failure = failureOf(event, settings.secrets);
          break;
        default:
          break;
      }
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
    if (finished === undefined) {
      yield {
        type: "error",
        kind: "network_error",
        message: "the stream ended before the model finished (no response.completed)",
      };
      return;
    }
    yield { type: "usage", usage: toUsage(finished.usage) };
    if (settings.chain && finished.id) settings.chain.remember(request, finished.id);
    let reason: StopReason = toolCalls > 0 ? "tool_use" : refused ? "refusal" : "stop";
    if (finished.status === "incomplete") {
      reason = INCOMPLETE_REASONS[finished.incomplete_details?.reason ?? ""] ?? "length";
    }
    yield { type: "done", reason };
  } catch (error) {
    yield* flush();
    yield guard.outcomeEvent() ?? classifyProviderError(error, { secrets: settings.secrets });
  } finally {
    guard.dispose();
    tracked?.release();
  }
}

/** A `response.failed` error or an `error` event, classified by its code and message. */
function failureOf(
  error: { code?: string | null; message?: string } | null | undefined,
  secrets: readonly (string | undefined)[],
): ModelErrorEvent {
  const code = error?.code ?? undefined;
  const message = error?.message ?? "the response failed";
  const kind = classifyFailure({ codes: code ? [code] : [], text: message });
  const event: ModelErrorEvent = {
    type: "error",
    kind,
    message: redactSecrets(code ? `${code}: ${message}` : message, secrets),
  };
  if (kind === "rate_limit") {
    const wait = retryAfterFromText(message);
    if (wait !== undefined) event.retryAfterMs = wait;
  }
  return event;
}

function toUsage(usage: Response["usage"]): Usage {
  if (!usage) return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  const cached = usage.input_tokens_details?.cached_tokens ?? 0;
  const written = usage.input_tokens_details?.cache_write_tokens ?? 0;
  const reasoning = usage.output_tokens_details?.reasoning_tokens ?? 0;
  return {
    input: Math.max(0, usage.input_tokens - cached - written),
    output: usage.output_tokens,
    cacheRead: cached,
    cacheWrite: written,
    ...(reasoning > 0 ? { reasoning } : {}),
  };
}
