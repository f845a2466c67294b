import type { Model } from "@arbor/providers";
import { createAnthropicMessagesModel } from "@arbor/providers/anthropic";
import { createGeminiModel } from "@arbor/providers/google";
import {
  createAzureOpenAIModel,
  createOpenAIChatModel,
  createOpenAIResponsesModel,
  type OpenAICompatiblePresetName,
} from "@arbor/providers/openai";
import type { ModelTarget } from "@arbor/turn-runner";
import type { ModelTargetSpec } from "../definition/index.js";
import {
  InvalidHostOptionsError,
  MissingApiKeyError,
  UnknownProviderError,
} from "../errors/index.js";
import {
  DEFAULT_PROVIDER_MODELS,
  LOCAL_PROVIDER_PRESETS,
  type ModelProviders,
  modelProvidersSchema,
} from "./provider-settings.js";

/**
 * Builds the model one target names, through the real adapter of its provider's API.
 * @throws UnknownProviderError when the provider is not configured
 * @throws MissingApiKeyError when the provider has no (or an empty) API key
 * @throws InvalidHostOptionsError when `providers` breaks its schema
 */
export function createModelForTarget(spec: ModelTargetSpec, providers: ModelProviders): Model {
  const checked = checkProviders(providers);
  const settings = Object.hasOwn(checked.providers, spec.provider)
    ? checked.providers[spec.provider]
    : undefined;
  if (settings === undefined) {
    throw new UnknownProviderError(spec.provider, Object.keys(checked.providers));
  }
  const at = `providers.${spec.provider}`;
  if (settings.preset !== undefined && settings.api !== "openai-chat") {
    throw new InvalidHostOptionsError(`${at}.preset`, 'only "openai-chat" providers take it');
  }
  // A server of one's own takes any key.
  const local = settings.preset !== undefined && LOCAL_PROVIDER_PRESETS.includes(settings.preset);
  const apiKey = settings.apiKey?.trim() || (local ? "not-needed" : undefined);
  if (!apiKey) throw new MissingApiKeyError(spec.provider);
  if (settings.api === "azure-openai") {
    const deployment = spec.model ?? settings.model;
    if (!settings.baseURL) {
      throw new InvalidHostOptionsError(
        `${at}.baseURL`,
        "Azure OpenAI needs the resource endpoint (https://<resource>.openai.azure.com)",
      );
    }
    if (!deployment) {
      throw new InvalidHostOptionsError(`${at}.model`, "Azure OpenAI needs the deployment name");
    }
    return createAzureOpenAIModel({
      endpoint: settings.baseURL,
      deployment,
      apiKey,
      ...(settings.wire ? { wire: settings.wire } : {}),
      ...(settings.apiVersion ? { apiVersion: settings.apiVersion } : {}),
      ...(settings.headers ? { headers: settings.headers } : {}),
    });
  }
  for (const field of ["wire", "apiVersion"] as const) {
    if (settings[field] !== undefined) {
      throw new InvalidHostOptionsError(`${at}.${field}`, `only "azure-openai" providers take it`);
    }
  }
  const options = {
    model: spec.model ?? settings.model ?? DEFAULT_PROVIDER_MODELS[settings.api],
    apiKey,
    ...(settings.baseURL ? { baseURL: settings.baseURL } : {}),
    ...(settings.headers ? { headers: settings.headers } : {}),
  };
  switch (settings.api) {
    case "anthropic-messages":
      return createAnthropicMessagesModel(options);
    case "openai-responses":
      return createOpenAIResponsesModel(options);
    case "google-gemini":
      return createGeminiModel(options);
    default:
      return createOpenAIChatModel({
        ...options,
        ...(settings.preset ? { preset: settings.preset as OpenAICompatiblePresetName } : {}),
      });
  }
}

/**
 * Turns a definition's model targets into the turn runner's targets, in order, over the
 * real `@arbor/providers` adapters. A pure mapping: nothing is read from the environment
 * and no request is sent.
 * @throws UnknownProviderError, MissingApiKeyError or InvalidHostOptionsError for the first target that cannot be built
 * @example
 * const targets = resolveModelTargets(definition.models, {
 *   providers: { openai: { api: "openai-chat", apiKey: appConfig.openaiKey } },
 * });
 */
export function resolveModelTargets(
  specs: readonly ModelTargetSpec[],
  providers: ModelProviders,
): ModelTarget[] {
  const checked = checkProviders(providers);
  return specs.map((spec) => ({ model: createModelForTarget(spec, checked) }));
}

function checkProviders(providers: ModelProviders): ModelProviders {
  const parsed = modelProvidersSchema.safeParse(providers);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new InvalidHostOptionsError(
    issue && issue.path.length > 0 ? issue.path.join(".") : "providers",
    issue?.message ?? "not a providers object",
  );
}
