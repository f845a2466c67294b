import type { ImagePart, Model, TextPart, ToolDefinition } from "@arbor/providers";
import {
  estimateSessionTokens,
  IMAGE_TOKEN_ESTIMATE,
  type Session,
  type TokenCounter,
} from "@arbor/session-store";
import { contextLimit, estimateTokens } from "./context-limit.js";
import type { ModelTarget } from "./target-pool.js";

export { CONTEXT_GUARD_CUSTOM_TYPE } from "@arbor/session-store";

/** Options of the context guard. */
export interface ContextGuardOptions {
  /** Set false to send every request unchecked. Default true. */
  enabled?: boolean;
  /** Tokens kept free as a margin for estimation error. Default 1,024 (at most 5% of the window). */
  bufferTokens?: number;
  /**
   * A real tokenizer for the agent's models: what came after the last answer with
   * provider usage, the system prompt, the tool definitions and tool outputs are counted
   * with it. Without one, four characters count as a token.
   */
  countTokens?: TokenCounter;
}

/** What the guard decided before a request. */
export type ContextVerdict =
  | { action: "send"; estimate: number; limit: number }
  | { action: "switch_target"; estimate: number; limit: number; target: ModelTarget }
  | { action: "force_final"; estimate: number; limit: number };

/** The tokens of tool output parts: text counted with `count` (chars/4 without), images flat. */
function countPartTokens(
  parts: ReadonlyArray<TextPart | ImagePart>,
  count: TokenCounter = estimateTokens,
): number {
  let tokens = 0;
  for (const part of parts)
    tokens += part.type === "text" ? count(part.text) : IMAGE_TOKEN_ESTIMATE;
  return tokens;
}

/**
 * The budget a turn's tool outputs share. Reserving is synchronous (check and subtract in
 * one step), so tools finishing at the same time cannot both take the last tokens.
 */
export class ToolOutputBudget {
  private remaining: number;
  private dropped = false;

  constructor(
    remaining: number,
    private readonly countTokens: TokenCounter = estimateTokens,
  ) {
    this.remaining = Math.max(0, remaining);
  }

  /** Whether an output was dropped because it did not fit. */
  get exceeded(): boolean {
    return this.dropped;
  }

  /** Tokens still free for outputs. */
  get left(): number {
    return this.remaining;
  }

  /**
   * Reserves the tokens of one output, or replaces the output by an error result saying
   * it was dropped when it does not fit in what is left.
   */
  fit<T extends { content: Array<TextPart | ImagePart>; isError: boolean }>(outcome: T): T {
    const tokens = countPartTokens(outcome.content, this.countTokens);
    if (tokens <= this.remaining) {
      this.remaining -= tokens;
      return outcome;
    }
    this.dropped = true;
    const text =
      `Output dropped: about ${tokens} tokens do not fit in the ${this.remaining} tokens of ` +
      "context left. Ask for less (a narrower range, a filter, a head of the output), or finish with what you already have.";
    return { ...outcome, content: [{ type: "text", text }], isError: true };
  }
}

/**
 * Keeps requests inside the model's context window: before each request it estimates the
 * prompt (the provider's usage of the last answer plus what came after, the system prompt
 * and the tool definitions, counted with the `countTokens` tokenizer or at chars/4) against
 * `contextWindow − buffer − maxOutput`.
 */
export class ContextGuard {
  readonly enabled: boolean;
  private readonly bufferTokens: number | undefined;
  private readonly countTokens: TokenCounter | undefined;

  constructor(
    options: ContextGuardOptions,
    private readonly maxOutputTokens: number | undefined,
  ) {
    this.enabled = options.enabled ?? true;
    this.bufferTokens = options.bufferTokens;
    this.countTokens = options.countTokens;
  }

  /**
   * The largest prompt a model takes while leaving room for its answer. The room kept for
   * the answer is capped at a quarter of the window, so a catalogue entry claiming more
   * output than window does not block every request.
   */
  limitFor(model: Model): number {
    const window = model.info.contextWindow;
    return contextLimit({
      contextWindow: window,
      buffer: this.bufferTokens ?? Math.min(1_024, Math.floor(window * 0.05)),
      maxOutput: Math.min(
        this.maxOutputTokens ?? model.info.maxOutputTokens,
        Math.floor(window / 4),
      ),
    });
  }

  /** The estimated prompt tokens of the next request. */
  estimate(session: Session, system: string | undefined, tools: readonly ToolDefinition[]): number {
    const count = this.countTokens ?? estimateTokens;
    const fixed =
      (system === undefined ? 0 : count(system)) +
      (tools.length === 0 ? 0 : count(JSON.stringify(tools)));
    return estimateSessionTokens(session, this.countTokens) + fixed;
  }

  /**
   * Decides about the next request: send it, move to a live target whose window takes it
   * (the first in rotation order), or force the final turn.
   */
  check(estimate: number, current: ModelTarget, targets: readonly ModelTarget[]): ContextVerdict {
    const limit = this.limitFor(current.model);
    if (!this.enabled || estimate <= limit) return { action: "send", estimate, limit };
    const bigger = targets.find((target) => this.limitFor(target.model) >= estimate);
    if (bigger) {
      return {
        action: "switch_target",
        estimate,
        limit: this.limitFor(bigger.model),
        target: bigger,
      };
    }
    return { action: "force_final", estimate, limit };
  }

  /**
   * The first live target (in rotation order) whose prompt limit is bigger than that of
   * `current`, where a request the provider found too long may still fit.
   */
  biggerWindow(current: ModelTarget, targets: readonly ModelTarget[]): ModelTarget | undefined {
    const limit = this.limitFor(current.model);
    return targets.find((target) => this.limitFor(target.model) > limit);
  }

  /** The budget for the outputs of a turn's tools, from the context as it is now. */
  toolBudget(estimate: number, model: Model): ToolOutputBudget {
    return new ToolOutputBudget(
      this.enabled ? this.limitFor(model) - estimate : Number.POSITIVE_INFINITY,
      this.countTokens,
    );
  }
}
