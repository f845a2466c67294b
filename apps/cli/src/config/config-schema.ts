import {
  mcpServerConfigSchema,
  PROVIDER_APIS,
  PROVIDER_PRESETS,
  REASONING_LEVELS,
} from "@arbor/orchestration";
import { z } from "zod";
import { approvalModeSchema } from "../approval/approval-schema.js";

/** Prices in US dollars per million tokens. */
export const modelPricingConfigSchema = z.strictObject({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cacheRead: z.number().nonnegative().optional(),
  cacheWrite: z.number().nonnegative().optional(),
});

/** A model of a provider as the config describes it; what it gives wins over the catalogue. */
export const configuredModelSchema = z.strictObject({
  /** The model id sent on the wire. */
  id: z.string().min(1),
  /** Tokens of input and output together the model attends to. */
  contextWindow: z.number().int().positive().optional(),
  /** The most tokens one answer may have. */
  maxOutputTokens: z.number().int().positive().optional(),
  /** What it costs; a local model is free (`{ "input": 0, "output": 0 }`). */
  pricing: modelPricingConfigSchema.optional(),
});
/** A model of a provider as the config describes it. */
export type ConfiguredModel = z.infer<typeof configuredModelSchema>;

/** One provider the user configured: which wire protocol, where, with which key. */
export const providerConfigSchema = z.object({
  /**
   * The wire protocol: `openai-chat` (OpenAI Chat Completions, also Ollama, vLLM, …),
   * `anthropic-messages`, `openai-responses`, `google-gemini` or `azure-openai` (whose
   * `baseURL` is the resource endpoint and whose `model` is the deployment name).
   */
  api: z.enum(PROVIDER_APIS),
  /**
   * For `openai-chat`: a known host (`openrouter`, `groq`, `deepseek`, `xai`, `mistral`,
   * `together`, `fireworks`, `cerebras`, `ollama`, `vllm`, `llamacpp`, `lmstudio`): its base
   * URL and field quirks; the local ones need no key.
   */
  preset: z.enum(PROVIDER_PRESETS as [string, ...string[]]).optional(),
  /** For `azure-openai`: the Responses API (default) or Chat Completions. */
  wire: z.enum(["chat", "responses"]).optional(),
  /** For `azure-openai`: the `api-version` of every request. */
  apiVersion: z.string().min(1).optional(),
  /** The API key; prefer `apiKeyEnv` so the key stays out of the file. */
  apiKey: z.string().min(1).optional(),
  /** The environment variable holding the API key. */
  apiKeyEnv: z.string().min(1).optional(),
  /** An endpoint other than the vendor's, e.g. `http://127.0.0.1:11434/v1`. */
  baseURL: z.url().optional(),
  /** The model used unless `--model` names another. */
  model: z.string().min(1).optional(),
  /** The models `/model` offers, with their context window and prices. */
  models: z.array(configuredModelSchema).optional(),
  /** Extra headers sent with every request. */
  headers: z.record(z.string(), z.string()).optional(),
});
/** One provider the user configured. */
export type ProviderConfig = z.infer<typeof providerConfigSchema>;

/** Fields one api needs or refuses, named at load time rather than at the first request. */
function checkProviderFields(provider: ProviderConfig, context: z.RefinementCtx): void {
  if (provider.preset !== undefined && provider.api !== "openai-chat") {
    context.addIssue({ code: "custom", path: ["preset"], message: 'only "openai-chat" takes it' });
  }
  if (provider.api === "azure-openai") {
    if (provider.baseURL === undefined) {
      context.addIssue({
        code: "custom",
        path: ["baseURL"],
        message:
          "azure-openai needs the resource endpoint, e.g. https://my-resource.openai.azure.com",
      });
    }
    if (provider.model === undefined && !provider.models?.length) {
      context.addIssue({
        code: "custom",
        path: ["model"],
        message: "azure-openai needs the deployment name as model",
      });
    }
    return;
  }
  for (const field of ["wire", "apiVersion"] as const) {
    if (provider[field] !== undefined) {
      context.addIssue({ code: "custom", path: [field], message: 'only "azure-openai" takes it' });
    }
  }
}

/** `~/.arbor/config.json`. Unknown keys are rejected so a typo is not silently ignored. */
export const arborConfigSchema = z.strictObject({
  /** The provider used unless `--provider` names another. */
  defaultProvider: z.string().min(1).optional(),
  /** Providers by name (the name is what `--provider` takes). */
  providers: z
    .record(z.string().min(1), providerConfigSchema.strict().superRefine(checkProviderFields))
    .default({}),
  /** The reasoning effort asked of models that think. */
  thinking: z.enum(REASONING_LEVELS).optional(),
  /** When the context is compacted: the turn runner's compaction settings. */
  compaction: z
    .strictObject({
      enabled: z.boolean().optional(),
      reserveTokens: z.number().int().nonnegative().optional(),
      keepRecentTokens: z.number().int().positive().optional(),
    })
    .optional(),
  /** The bash sandbox of the `sandbox` approval mode: whether commands get the network. */
  sandbox: z.strictObject({ network: z.boolean().optional() }).optional(),
  /** Ask the model for a session title after the first exchange. Default true. */
  autoTitle: z.boolean().optional(),
  /** A system prompt sent with every request. */
  systemPrompt: z.string().optional(),
  /** What the model may do without asking (`ask`, `auto-edit`, `sandbox`, `yolo`); `--approval` wins. */
  approval: approvalModeSchema.optional(),
  /**
   * MCP servers whose tools the model may use (behind the approvals like any tool): stdio
   * (`{ "name", "transport": { "type": "stdio", "command", "args" } }`) or streamable HTTP
   * (`{ "name", "transport": { "type": "http", "url", "headers" } }`). `/mcp` lists them.
   */
  mcpServers: z.array(mcpServerConfigSchema).max(64).optional(),
});
/** `~/.arbor/config.json`, with defaults applied. */
export type ArborConfig = z.infer<typeof arborConfigSchema>;
