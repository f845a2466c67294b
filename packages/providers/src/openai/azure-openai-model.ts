import { AzureOpenAI } from "openai";
import { ActivityFetch } from "../adapter/activity-fetch.js";
import { resolveModelInfo } from "../adapter/model-info.js";
import { ModelConfigError } from "../errors.js";
import { adapterSecrets } from "../secrets/adapter-secrets.js";
import type { ModelInfo } from "../spec/catalogue.js";
import type { Model } from "../spec/model.js";
import { openAIChatModelOver } from "./openai-chat-model.js";
import { openAIResponsesModelOver } from "./openai-responses-model.js";

/** The `api-version` Arbor asks Azure OpenAI for unless told otherwise (it has the Responses API). */
export const AZURE_OPENAI_DEFAULT_API_VERSION = "2025-04-01-preview";

/** Options of {@link createAzureOpenAIModel}. */
export interface AzureOpenAIModelOptions {
  /** The resource endpoint, e.g. `https://my-resource.openai.azure.com`. */
  endpoint: string;
  /** The deployment name: the model id on the wire. */
  deployment: string;
  /** The catalogue entry or key whose limits and prices apply. Default: the deployment name. */
  model?: ModelInfo | string;
  /** Which API: `responses` (default) or `chat` (Chat Completions). */
  wire?: "chat" | "responses";
  /** `api-version` of every request. Default {@link AZURE_OPENAI_DEFAULT_API_VERSION}. */
  apiVersion?: string;
  /** The resource key, sent as the `api-key` header. Give this or `entraToken`. */
  apiKey?: string;
  /** A Microsoft Entra ID token source, sent as `Authorization: Bearer …`. */
  entraToken?: () => Promise<string>;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /** Fail with `timeout` when no data arrives for this long. Default 60 000 ms; 0 disables. */
  idleTimeoutMs?: number;
  /** A `fetch` to use instead of the global one. */
  fetch?: typeof fetch;
}

/**
 * Creates a {@link Model} on Azure OpenAI through the `openai` SDK's `AzureOpenAI` client,
 * speaking the Responses API or Chat Completions with the same adapters as OpenAI itself.
 * Nothing is read from the environment (the SDK's own fallbacks are never reached).
 *
 * @throws ModelConfigError when the endpoint, deployment or credentials are missing
 * @example
 * ```ts
 * const model = createAzureOpenAIModel({
 *   endpoint: "https://my-resource.openai.azure.com",
 *   deployment: "gpt-5-mini",
 *   apiKey: key,
 * });
 * ```
 */
export function createAzureOpenAIModel(options: AzureOpenAIModelOptions): Model {
  const owner = `createAzureOpenAIModel(${options.deployment})`;
  if (!options.endpoint?.trim()) {
    throw new ModelConfigError(`${owner} needs an endpoint (https://<resource>.openai.azure.com)`);
  }
  if (!options.deployment?.trim()) {
    throw new ModelConfigError("createAzureOpenAIModel needs a deployment name");
  }
  if ((options.apiKey === undefined) === (options.entraToken === undefined)) {
    throw new ModelConfigError(`${owner} needs exactly one of apiKey and entraToken`);
  }
  const secrets = adapterSecrets(owner, options);
  const base = resolveModelInfo(options.model ?? options.deployment, "azure-openai", "azure");
  const info: ModelInfo = { ...base, id: options.deployment, api: "azure-openai" };
  const activity = new ActivityFetch(options.fetch);
  const client = new AzureOpenAI({
    baseURL: `${options.endpoint.replace(/\/+$/, "")}/openai`,
    deployment: options.deployment,
    apiVersion: options.apiVersion ?? AZURE_OPENAI_DEFAULT_API_VERSION,
    // An explicit null keeps the SDK from reading AZURE_OPENAI_API_KEY.
    apiKey: (options.apiKey ?? null) as string | undefined,
    ...(options.entraToken ? { azureADTokenProvider: options.entraToken } : {}),
    maxRetries: 0,
    logLevel: "off",
    ...(options.headers ? { defaultHeaders: options.headers } : {}),
    fetch: activity.fetch,
  });
  const common = { idleTimeoutMs: options.idleTimeoutMs, baseURL: options.endpoint };
  return options.wire === "chat"
    ? openAIChatModelOver(client, activity, info, common, secrets)
    : openAIResponsesModelOver(client, activity, info, common, secrets);
}
