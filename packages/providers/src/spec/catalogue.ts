import { z } from "zod";
import type { Usage } from "./events.js";

/** The wire protocols Arbor's adapters speak. */
export const MODEL_APIS = [
  "openai-chat",
  "anthropic-messages",
  "openai-responses",
  "google-gemini",
  "bedrock-converse",
  "azure-openai",
] as const;
/** One of {@link MODEL_APIS}. */
export type ModelApi = (typeof MODEL_APIS)[number];

/** Prices in US dollars per million tokens. */
export const modelPricingSchema = z.object({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cacheRead: z.number().nonnegative(),
  cacheWrite: z.number().nonnegative(),
});
/** Prices in US dollars per million tokens. */
export type ModelPricing = z.infer<typeof modelPricingSchema>;

/** What a model accepts beyond plain text. */
export const modelCapabilitiesSchema = z.object({
  tools: z.boolean(),
  images: z.boolean(),
  reasoning: z.boolean(),
});
/** What a model accepts beyond plain text. */
export type ModelCapabilities = z.infer<typeof modelCapabilitiesSchema>;

/** A catalogue entry: how to reach a model, how much it holds, what it costs. */
export const modelInfoSchema = z.object({
  /** The provider's model id, sent on the wire (`gpt-4.1`, `claude-sonnet-4-6`). */
  id: z.string().min(1),
  provider: z.string().min(1),
  api: z.enum(MODEL_APIS),
  /** Tokens of input and output together the model can attend to. */
  contextWindow: z.number().int().positive(),
  maxOutputTokens: z.number().int().positive(),
  pricing: modelPricingSchema,
  capabilities: modelCapabilitiesSchema,
});
/** A catalogue entry: how to reach a model, how much it holds, what it costs. */
export type ModelInfo = z.infer<typeof modelInfoSchema>;

const entry = (info: ModelInfo): ModelInfo => modelInfoSchema.parse(info);
const all = { tools: true, images: true, reasoning: true };

/**
 * A small built-in catalogue of well-known models, keyed by `provider/id`. Prices are
 * list prices at the time of writing; pass your own {@link ModelInfo} for anything else.
 */
export const MODEL_CATALOGUE: Readonly<Record<string, ModelInfo>> = Object.freeze({
  "openai/gpt-4.1": entry({
    id: "gpt-4.1",
    provider: "openai",
    api: "openai-chat",
    contextWindow: 1_047_576,
    maxOutputTokens: 32_768,
    pricing: { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 0 },
    capabilities: { tools: true, images: true, reasoning: false },
  }),
  "openai/gpt-4.1-mini": entry({
    id: "gpt-4.1-mini",
    provider: "openai",
    api: "openai-chat",
    contextWindow: 1_047_576,
    maxOutputTokens: 32_768,
    pricing: { input: 0.4, output: 1.6, cacheRead: 0.1, cacheWrite: 0 },
    capabilities: { tools: true, images: true, reasoning: false },
  }),
  "openai/o4-mini": entry({
    id: "o4-mini",
    provider: "openai",
    api: "openai-chat",
    contextWindow: 200_000,
    maxOutputTokens: 100_000,
    pricing: { input: 1.1, output: 4.4, cacheRead: 0.275, cacheWrite: 0 },
    capabilities: all,
  }),
  "openai/gpt-5": entry({
    id: "gpt-5",
    provider: "openai",
    api: "openai-responses",
    contextWindow: 400_000,
    maxOutputTokens: 128_000,
    pricing: { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 },
    capabilities: all,
  }),
  "openai/gpt-5-mini": entry({
    id: "gpt-5-mini",
    provider: "openai",
    api: "openai-responses",
    contextWindow: 400_000,
    maxOutputTokens: 128_000,
    pricing: { input: 0.25, output: 2, cacheRead: 0.025, cacheWrite: 0 },
    capabilities: all,
  }),
  "google/gemini-2.5-flash": entry({
    id: "gemini-2.5-flash",
    provider: "google",
    api: "google-gemini",
    contextWindow: 1_048_576,
    maxOutputTokens: 65_536,
    pricing: { input: 0.3, output: 2.5, cacheRead: 0.03, cacheWrite: 0 },
    capabilities: all,
  }),
  "google/gemini-2.5-pro": entry({
    id: "gemini-2.5-pro",
    provider: "google",
    api: "google-gemini",
    contextWindow: 1_048_576,
    maxOutputTokens: 65_536,
    pricing: { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 },
    capabilities: all,
  }),
  "anthropic/claude-sonnet-4-6": entry({
    id: "claude-sonnet-4-6",
    provider: "anthropic",
    api: "anthropic-messages",
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    pricing: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    capabilities: all,
  }),
  "anthropic/claude-haiku-4-5": entry({
    id: "claude-haiku-4-5",
    provider: "anthropic",
    api: "anthropic-messages",
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    pricing: { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
    capabilities: all,
  }),
  "anthropic/claude-opus-4-5": entry({
    id: "claude-opus-4-5",
    provider: "anthropic",
    api: "anthropic-messages",
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    pricing: { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
    capabilities: all,
  }),
});

/**
 * Looks up a built-in catalogue entry by `provider/id`.
 *
 * @returns the entry, or `undefined` when the catalogue does not know the model.
 */
export function findModelInfo(key: string): ModelInfo | undefined {
  return MODEL_CATALOGUE[key];
}

/**
 * Computes the cost in US dollars of one call's usage at a model's prices.
 *
 * @example
 * ```ts
 * costOf({ input: 1000, output: 200, cacheRead: 0, cacheWrite: 0 }, info.pricing);
 * ```
 */
export function costOf(usage: Usage, pricing: ModelPricing): number {
  return (
    (usage.input * pricing.input +
      usage.output * pricing.output +
      usage.cacheRead * pricing.cacheRead +
      usage.cacheWrite * pricing.cacheWrite) /
    1_000_000
  );
}
