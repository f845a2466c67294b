import { mcpServerConfigSchema, REASONING_LEVELS } from "@arbor/orchestration";
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
  /** The wire protocol: OpenAI Chat Completions (also Ollama, vLLM, …) or Anthropic Messages. */
  api: z.enum(["openai-chat", "anthropic-messages"]),
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

/** `~/.arbor/config.json`. Unknown keys are rejected so a typo is not silently ignored. */
export const arborConfigSchema = z.strictObject({
  /** The provider used unless `--provider` names another. */
  defaultProvider: z.string().min(1).optional(),
  /** Providers by name (the name is what `--provider` takes). */
  providers: z.record(z.string().min(1), providerConfigSchema.strict()).default({}),
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
