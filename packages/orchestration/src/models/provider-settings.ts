import { OPENAI_COMPATIBLE_PRESETS } from "@arbor/providers/openai";
import { z } from "zod";

/** The OpenAI-compatible hosts an `openai-chat` provider may name as its `preset`. */
export const PROVIDER_PRESETS = Object.keys(OPENAI_COMPATIBLE_PRESETS) as Array<
  keyof typeof OPENAI_COMPATIBLE_PRESETS
>;

/** The base URL a preset stands for, or `undefined` for a name that is no preset. */
export function presetBaseURL(name: string): string | undefined {
  return Object.hasOwn(OPENAI_COMPATIBLE_PRESETS, name)
    ? OPENAI_COMPATIBLE_PRESETS[name as keyof typeof OPENAI_COMPATIBLE_PRESETS].baseURL
    : undefined;
}

/** The presets that are servers on the user's own machine (they take any API key). */
export const LOCAL_PROVIDER_PRESETS: readonly string[] = PROVIDER_PRESETS.filter(
  (name) => OPENAI_COMPATIBLE_PRESETS[name].local,
);

/** The wire protocols a provider may speak. */
export const PROVIDER_APIS = [
  "openai-chat",
  "anthropic-messages",
  "openai-responses",
  "google-gemini",
  "azure-openai",
] as const;

/** How to reach one provider: filled by the app (from its config and environment). */
export const providerSettingsSchema = z.strictObject({
  /**
   * OpenAI Chat Completions (also Ollama, vLLM, llama.cpp, OpenRouter), Anthropic Messages,
   * the OpenAI Responses API, Google Gemini, or Azure OpenAI (whose `baseURL` is the
   * resource endpoint and whose `model` is the deployment name).
   */
  api: z.enum(PROVIDER_APIS),
  /**
   * For `openai-chat`: a known host (`groq`, `openrouter`, `ollama`, …) whose base URL and
   * field quirks apply.
   */
  preset: z.enum(PROVIDER_PRESETS as [string, ...string[]]).optional(),
  /** For `azure-openai`: the Responses API (default) or Chat Completions. */
  wire: z.enum(["chat", "responses"]).optional(),
  /** For `azure-openai`: the `api-version` of every request. */
  apiVersion: z.string().min(1).optional(),
  /** The API key; local OpenAI-compatible servers accept any non-empty text. */
  apiKey: z.string().optional(),
  /** An endpoint other than the vendor's, e.g. `http://127.0.0.1:11434/v1`. */
  baseURL: z.string().min(1).optional(),
  /** The model used when a target names only the provider. */
  model: z.string().min(1).optional(),
  /** Extra headers on every request. */
  headers: z.record(z.string(), z.string()).optional(),
});

/** How to reach one provider. */
export type ProviderSettings = z.infer<typeof providerSettingsSchema>;

/** The providers an app offers its agents, by the name targets use. */
export const modelProvidersSchema = z.strictObject({
  providers: z.record(z.string().min(1), providerSettingsSchema),
});

/** What {@link resolveModelTargets} resolves targets against. Packages never read the environment: the app fills it. */
export type ModelProviders = z.infer<typeof modelProvidersSchema>;

/** The model a provider uses when neither the target nor its settings name one. */
export const DEFAULT_PROVIDER_MODELS: Readonly<
  Record<Exclude<ProviderSettings["api"], "azure-openai">, string>
> = {
  "openai-chat": "gpt-4.1-mini",
  "anthropic-messages": "claude-sonnet-4-6",
  "openai-responses": "gpt-5-mini",
  "google-gemini": "gemini-2.5-flash",
};
