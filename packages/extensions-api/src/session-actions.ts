/** A model as extensions see it. */
export interface ExtensionModelInfo {
  provider: string;
  id: string;
  /** The context window, in tokens, when known. */
  contextWindow?: number;
}

/** How full the context is: what the next request would send. */
export interface ContextUsage {
  /** The estimated size of the context the next request sends, in tokens. */
  tokens: number;
  /** The current model's context window, in tokens. */
  contextWindow: number;
  /** `tokens` as a percentage of `contextWindow` (0 when the window is unknown). */
  percent: number;
}

/** What `ctx.compact()` did. */
export interface ExtensionCompactResult {
  /** `compacted`, or why not: `cancelled` (by an extension), `nothing_to_compact`, `disabled`, `failed`. */
  status: "compacted" | "cancelled" | "nothing_to_compact" | "disabled" | "failed";
  /** Why it failed, for `failed`. */
  error?: string;
}

/** What `ctx.navigateTree()` did. */
export interface ExtensionNavigateResult {
  /** True when an extension's `session_before_tree` handler cancelled the move. */
  cancelled: boolean;
}

/** Options of `ctx.navigateTree()`. */
export interface ExtensionNavigateOptions {
  /** Summarize the branch left (needs a summarizer in the app). */
  summarize?: boolean;
}

/**
 * What the app's host provides so extensions can steer the session (`AgentHost` from
 * `@arbor/orchestration` implements it through its own methods). Without it, the reading
 * members of the context answer conservatively and the acting ones reject with
 * `action_unavailable`.
 */
export interface ExtensionSessionActions {
  /** The model the next request goes to. */
  model(): ExtensionModelInfo | undefined;
  /** The models the agent may use (its targets), the current one included. */
  models(): ExtensionModelInfo[];
  getContextUsage(): ContextUsage | undefined;
  /** Compacts now, focused by `instructions`. Rejects while the agent is busy. */
  compact(instructions?: string): Promise<ExtensionCompactResult>;
  /** Whether no prompt (and no other change) runs. */
  isIdle(): boolean;
  /** Ends the running prompt at once; nothing when idle. */
  abort(): void;
  /** Resolves once the agent is idle. */
  waitForIdle(): Promise<void>;
  /** Leaves the session for a new, empty one; resolves to its id. */
  newSession(): Promise<{ sessionId: string }>;
  /** Copies the path up to `entryId` into a new session and continues there. */
  fork(entryId: string): Promise<{ sessionId: string }>;
  /** Moves the leaf to `targetId` (`null`: before the first entry). */
  navigateTree(
    targetId: string | null,
    options: ExtensionNavigateOptions,
  ): Promise<ExtensionNavigateResult>;
}
