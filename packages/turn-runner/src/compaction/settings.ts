/** When and how much a session compacts. */
export interface CompactionSettings {
  /**
   * Whether the session compacts at all. False turns off automatic compaction, recovery
   * from a context overflow and manual `compact()` alike.
   */
  enabled: boolean;
  /**
   * Tokens kept free for the answer and the next messages: compaction starts when the
   * estimated context passes `contextWindow − reserveTokens`.
   */
  reserveTokens: number;
  /** Estimated tokens of the newest conversation kept verbatim after a compaction. */
  keepRecentTokens: number;
}

/** The settings used where none are given. */
export const DEFAULT_COMPACTION_SETTINGS: Readonly<CompactionSettings> = Object.freeze({
  enabled: true,
  reserveTokens: 16_384,
  keepRecentTokens: 20_000,
});

/** Fills the settings a caller left out with {@link DEFAULT_COMPACTION_SETTINGS}. */
export function resolveCompactionSettings(
  settings: Partial<CompactionSettings> = {},
): CompactionSettings {
  return { ...DEFAULT_COMPACTION_SETTINGS, ...settings };
}

/**
 * Tells whether a context of `contextTokens` (estimated) must be compacted before the next
 * request to a model with `contextWindow` tokens: it passed `contextWindow − reserveTokens`
 * and compaction is enabled.
 */
export function shouldCompact(
  contextTokens: number,
  contextWindow: number,
  settings: CompactionSettings,
): boolean {
  return settings.enabled && contextTokens > contextWindow - settings.reserveTokens;
}

/** Where a session compacts for one model, so compaction always comes before the guard. */
export interface CompactionBudget {
  /** Compaction starts when the estimated prompt passes this many tokens. */
  threshold: number;
  /** Tokens of the newest conversation kept verbatim, scaled down for a small window. */
  keepRecentTokens: number;
  /** The most tokens the summary may take. */
  summaryTokens: number;
}

/**
 * The compaction budget of a model, from the prompt limit the context guard enforces
 * (`contextWindow − buffer − room for the answer`): compaction starts below that limit, by
 * `reserveTokens` or a tenth of the limit (whichever is smaller, so a small window still
 * gets a margin), and never later than `contextWindow − reserveTokens` (a reserve of more
 * than half the window counts as a quarter of it). What a compaction
 * leaves (the summary and the kept turns, each at most a quarter of the threshold) is well
 * under the threshold, so the next turn goes on with its tools instead of being forced to
 * a final answer. Both sides measure the same estimate (the prompt the guard checks).
 * @example
 * ```ts
 * compactionBudget({ contextWindow: 200_000, promptLimit: 150_976, maxOutputTokens: 64_000 }, DEFAULT_COMPACTION_SETTINGS);
 * // { threshold: 135_879, keepRecentTokens: 20_000, summaryTokens: 13_107 }
 * ```
 */
export function compactionBudget(
  model: { contextWindow: number; promptLimit: number; maxOutputTokens: number },
  settings: CompactionSettings,
): CompactionBudget {
  // A reserve of more than half the window (the default 16k of a 4k model) would leave
  // nothing to work in: a quarter of the window is reserved instead.
  const reserve =
    settings.reserveTokens <= model.contextWindow / 2
      ? settings.reserveTokens
      : Math.floor(model.contextWindow / 4);
  const margin = Math.min(reserve, Math.floor(model.promptLimit / 10));
  const threshold = Math.max(
    0,
    Math.min(model.contextWindow - reserve, model.promptLimit - margin),
  );
  const quarter = Math.max(1, Math.floor(threshold / 4));
  return {
    threshold,
    keepRecentTokens: Math.max(1, Math.min(settings.keepRecentTokens, quarter)),
    summaryTokens: Math.max(
      64,
      Math.min(model.maxOutputTokens, Math.floor(reserve * 0.8), quarter),
    ),
  };
}
