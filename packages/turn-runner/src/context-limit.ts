/** What the context guard needs to know about the model serving the next request. */
export interface ContextBudget {
  /** The model's context window in tokens. */
  contextWindow: number;
  /** Tokens kept free as a safety margin for estimation error. */
  buffer: number;
  /** Tokens reserved for the model's answer. */
  maxOutput: number;
}

/**
 * The largest prompt, in tokens, that still leaves room for the answer:
 * `contextWindow − buffer − maxOutput`, never below zero.
 */
export function contextLimit({ contextWindow, buffer, maxOutput }: ContextBudget): number {
  return Math.max(0, contextWindow - buffer - maxOutput);
}

/**
 * A tokenizer-free estimate of the tokens in a text: one token per four UTF-16 code units,
 * rounded up. Used where no real tokenizer is available for the model.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
