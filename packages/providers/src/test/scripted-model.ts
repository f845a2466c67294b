import { type ModelInfo, modelInfoSchema } from "../spec/catalogue.js";
import type { ModelEvent } from "../spec/events.js";
import type { Model } from "../spec/model.js";
import type { ModelRequest } from "../spec/request.js";
import {
  type ScriptedResponse,
  type ScriptedResponseInput,
  scriptedResponseSchema,
} from "./script.js";
import { scriptSteps } from "./script-events.js";
import { ScriptExhaustedError } from "./script-exhausted-error.js";

/** The catalogue entry a scripted model reports unless given one. */
export const SCRIPTED_MODEL_INFO: ModelInfo = modelInfoSchema.parse({
  id: "scripted",
  provider: "arbor",
  api: "openai-chat",
  contextWindow: 128_000,
  maxOutputTokens: 16_384,
  pricing: { input: 1, output: 2, cacheRead: 0.1, cacheWrite: 1.25 },
  capabilities: { tools: true, images: true, reasoning: true },
});

/** Options of {@link ScriptedModel}. */
export interface ScriptedModelOptions {
  /** One answer per call, in order. */
  responses: readonly ScriptedResponseInput[];
  info?: ModelInfo;
}

/**
 * A {@link Model} that plays one scripted answer per call, records every request, and
 * throws {@link ScriptExhaustedError} when called more often than scripted.
 *
 * @example
 * ```ts
 * const model = new ScriptedModel({ responses: ["Hello", { blocks: [], error: { kind: "rate_limit" } }] });
 * ```
 */
export class ScriptedModel implements Model {
  readonly info: ModelInfo;
  /** Every request received, in order (including the abort signal). */
  readonly requests: ModelRequest[] = [];
  readonly #responses: ScriptedResponse[];

  constructor(options: ScriptedModelOptions) {
    this.info = options.info ?? SCRIPTED_MODEL_INFO;
    this.#responses = options.responses.map((response) => scriptedResponseSchema.parse(response));
  }

  /** How many scripted answers have not been played yet. */
  get remaining(): number {
    return this.#responses.length - this.requests.length;
  }

  /**
   * Plays the next scripted answer.
   *
   * @throws ScriptExhaustedError when every scripted answer has been used.
   */
  stream(request: ModelRequest): AsyncIterable<ModelEvent> {
    const response = this.#responses[this.requests.length];
    if (response === undefined) {
      throw new ScriptExhaustedError(this.#responses.length, this.requests.length + 1);
    }
    this.requests.push(request);
    return play(response, this.info.id, request.signal);
  }
}

async function* play(
  response: ScriptedResponse,
  modelId: string,
  signal: AbortSignal | undefined,
): AsyncGenerator<ModelEvent> {
  const aborted = (): ModelEvent => ({
    type: "error",
    kind: "aborted",
    message: "the request was aborted",
  });
  for (const step of scriptSteps(response, modelId)) {
    if (step.isDelta && response.delayMs > 0) await sleep(response.delayMs, signal);
    if (signal?.aborted) {
      yield aborted();
      return;
    }
    yield step.event;
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
