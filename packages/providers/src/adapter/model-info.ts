import { findModelInfo, type ModelApi, type ModelInfo } from "../spec/catalogue.js";

/**
 * Resolves an adapter's `model` option: a full entry, a built-in catalogue key
 * (`provider/id`), or a bare id for a model the catalogue does not know (a local model
 * behind Ollama or vLLM), which gets generous limits and zero prices.
 */
export function resolveModelInfo(
  model: ModelInfo | string,
  api: ModelApi,
  provider: string,
): ModelInfo {
  if (typeof model !== "string") return model;
  return (
    findModelInfo(model) ??
    findModelInfo(`${provider}/${model}`) ?? {
      id: model,
      provider,
      api,
      contextWindow: 128_000,
      maxOutputTokens: 8_192,
      pricing: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      capabilities: { tools: true, images: false, reasoning: false },
    }
  );
}
