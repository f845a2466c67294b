import type { ArborConfig } from "./config-schema.js";
import { DEFAULT_MODELS, providersFromEnv } from "./resolve-provider.js";

/** One model `/model` offers. */
export interface ListedModel {
  /** What `/model` takes to switch to it: `provider/id`. */
  spec: string;
  /** The context window and prices the config gives, e.g. `128k context, $0.15/$0.60 per M`. */
  details: string | undefined;
}

function formatTokens(tokens: number): string {
  return tokens >= 1000 ? `${Math.round(tokens / 1000)}k` : String(tokens);
}

/**
 * The models of every configured provider (the config file's, then the environment's):
 * each provider's `models` list, else its one model (or the API's default).
 */
export function configuredModelList(config: ArborConfig, env: NodeJS.ProcessEnv): ListedModel[] {
  const all = { ...providersFromEnv(env), ...config.providers };
  return Object.entries(all).flatMap(([name, provider]) => {
    const models = provider.models?.length
      ? provider.models
      : [{ id: provider.model ?? DEFAULT_MODELS[provider.api] }];
    return models.map((model) => {
      const parts = [
        "contextWindow" in model && model.contextWindow !== undefined
          ? `${formatTokens(model.contextWindow)} context`
          : undefined,
        "pricing" in model && model.pricing !== undefined
          ? `$${model.pricing.input}/$${model.pricing.output} per M tokens in/out`
          : undefined,
      ].filter((part): part is string => part !== undefined);
      return { spec: `${name}/${model.id}`, details: parts.length ? parts.join(", ") : undefined };
    });
  });
}
