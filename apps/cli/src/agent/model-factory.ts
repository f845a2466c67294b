import type { Model, ReasoningLevel } from "@arbor/orchestration";
import { createModelForTarget } from "@arbor/orchestration";
import {
  type ConfiguredModel,
  modelProvidersOf,
  modelTargetOf,
  type ResolvedProvider,
} from "../config/index.js";

/**
 * Builds the model a resolved provider describes, through the orchestration layer's
 * target resolution (the real adapter of the provider's API).
 */
export function createModel(provider: ResolvedProvider): Model {
  const model = createModelForTarget(modelTargetOf(provider), modelProvidersOf(provider));
  return withConfiguredInfo(model, provider.modelInfo);
}

/**
 * The model with what the config says of it (context window, longest answer, prices)
 * in place of the catalogue's; unchanged without a config entry.
 */
export function withConfiguredInfo(model: Model, configured: ConfiguredModel | undefined): Model {
  if (configured === undefined) return model;
  const { contextWindow, maxOutputTokens, pricing } = configured;
  return {
    ...model,
    info: {
      ...model.info,
      ...(contextWindow !== undefined ? { contextWindow } : {}),
      ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
      ...(pricing !== undefined ? { pricing: { cacheRead: 0, cacheWrite: 0, ...pricing } } : {}),
    },
  };
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
