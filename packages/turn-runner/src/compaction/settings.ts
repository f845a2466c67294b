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
