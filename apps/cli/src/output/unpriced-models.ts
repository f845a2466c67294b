import type { ModelInfo } from "@arbor/orchestration";

/** Whether a model has no price: the catalogue does not know it, so it costs 0 per token. */
export function isUnpriced(info: Pick<ModelInfo, "pricing">): boolean {
  const { input, output, cacheRead, cacheWrite } = info.pricing;
  return input === 0 && output === 0 && cacheRead === 0 && cacheWrite === 0;
}

/**
 * Remembers which models without a price were already reported, so each is reported once
 * (per `arbor run`, per app) instead of its cost silently reading $0.
 */
export class UnpricedModels {
  private readonly reported = new Set<string>();

  /**
   * The notice for a model without a price the first time it is seen, else undefined.
   *
   * @param info the model's catalogue entry (an unknown model's has zero prices)
   */
  check(info: Pick<ModelInfo, "provider" | "id" | "pricing">): string | undefined {
    if (!isUnpriced(info)) return undefined;
    const key = `${info.provider}/${info.id}`;
    if (this.reported.has(key)) return undefined;
    this.reported.add(key);
    return `${key} has no price in the model catalogue: its cost is counted as $0.`;
  }
}
