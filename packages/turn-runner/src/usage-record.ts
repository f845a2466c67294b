import { costOf, type ModelPricing, type Usage } from "@arbor/providers";

/**
 * Usage as Arbor stores it on an answer, in pi's shape: the token counts, their total, and
 * their cost in US dollars at the serving model's catalogue prices.
 */
export type UsageRecord = Usage & {
  totalTokens: number;
  cost: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
};

/** The stored form of one attempt's usage, priced with the model that served it. */
export function usageRecord(usage: Usage, pricing: ModelPricing): UsageRecord {
  const part = (tokens: number, pricePerMillion: number) => (tokens * pricePerMillion) / 1_000_000;
  return {
    input: usage.input,
    output: usage.output,
    cacheRead: usage.cacheRead,
    cacheWrite: usage.cacheWrite,
    totalTokens: usage.input + usage.output + usage.cacheRead + usage.cacheWrite,
    cost: {
      input: part(usage.input, pricing.input),
      output: part(usage.output, pricing.output),
      cacheRead: part(usage.cacheRead, pricing.cacheRead),
      cacheWrite: part(usage.cacheWrite, pricing.cacheWrite),
      total: costOf(usage, pricing),
    },
  };
}
