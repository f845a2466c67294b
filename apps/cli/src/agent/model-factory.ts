import type { Model, ReasoningLevel } from "@arbor/providers";
import { createAnthropicMessagesModel } from "@arbor/providers/anthropic";
import { createOpenAIChatModel } from "@arbor/providers/openai";
import type { ResolvedProvider } from "../config/index.js";

/**
 * Builds the model a resolved provider describes, through the real adapter of its API.
 * The provider name becomes the model's provider unless the catalogue knows the model.
 */
export function createModel(provider: ResolvedProvider): Model {
  const common = {
    model: provider.model,
    apiKey: provider.apiKey,
    ...(provider.baseURL ? { baseURL: provider.baseURL } : {}),
  };
  return provider.api === "anthropic-messages"
    ? createAnthropicMessagesModel(common)
    : createOpenAIChatModel(common);
}

/**
 * Wraps a model so every request asks for a reasoning level; the level is read on each
 * call, so `/thinking` takes effect on the next request.
 */
export function withReasoning(model: Model, level: () => ReasoningLevel): Model {
  return {
    info: model.info,
    stream: (request) => {
      const reasoning = level();
      return model.stream(reasoning === "off" ? request : { ...request, reasoning });
    },
  };
}
