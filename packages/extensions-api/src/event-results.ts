import { type AgentMessage, agentMessageSchema } from "@arbor/session-store";
import { z } from "zod";
import type { ToolResultContent } from "./content.js";
import {
  type CustomMessageInput,
  customMessageInputSchema,
  toolResultContentSchema,
} from "./content.js";
import type { ExtensionEventName } from "./events.js";

/*
 * Return values are strict objects: an unknown key (`{ blocked: true }` for `{ block: true }`)
 * is reported as an invalid return instead of being silently ignored, because a guard that
 * does nothing is worse than one that is reported.
 */

/** What a `before_agent_start` handler may return. */
export const beforeAgentStartResultSchema = z.strictObject({
  /** A message added before the prompt (persisted as a `custom_message`). Every handler's is kept. */
  message: customMessageInputSchema.optional(),
  /** Replaces the system prompt for this prompt only. Chained; the last one wins. */
  systemPrompt: z.string().optional(),
});
/** What a `before_agent_start` handler may return. */
export type BeforeAgentStartResult = z.infer<typeof beforeAgentStartResultSchema>;

/** What a `context` handler may return. */
export const contextResultSchema = z.strictObject({
  /** Replaces the messages sent for this model call only. Chained; the last one wins. */
  messages: z.array(agentMessageSchema).optional(),
});
/** What a `context` handler may return. */
export type ContextResult = z.infer<typeof contextResultSchema>;

/** What a `tool_call` handler may return. */
export const toolCallResultSchema = z.strictObject({
  /** Blocks the call; the first handler to block wins and no later handler runs. */
  block: z.boolean().optional(),
  /** Why, told to the model as the tool's error result. */
  reason: z.string().optional(),
});
/** What a `tool_call` handler may return. */
export type ToolCallResult = z.infer<typeof toolCallResultSchema>;

/** What a `tool_result` handler may return; each field replaces the one it names. */
export const toolResultResultSchema = z.strictObject({
  content: z.array(toolResultContentSchema).optional(),
  isError: z.boolean().optional(),
  details: z.unknown().optional(),
});
/** What a `tool_result` handler may return; each field replaces the one it names. */
export type ToolResultResult = z.infer<typeof toolResultResultSchema>;

/** What a `session_before_compact` or `session_before_tree` handler may return. */
export const summaryHookResultSchema = z.strictObject({
  /** Cancels the operation; the first handler to cancel wins and no later handler runs. */
  cancel: z.boolean().optional(),
  /** Supplies the summary instead of the model. Chained; the last one wins. */
  summary: z.string().min(1).optional(),
  /** Extension data stored with the summary. Replaced with `summary`. */
  details: z.unknown().optional(),
});
/** What a `session_before_compact` handler may return: a summary hook's result, or a new prompt. */
export const sessionBeforeCompactResultSchema = summaryHookResultSchema.extend({
  /**
   * Replaces the instruction the model summarizes with (when no handler supplies the
   * summary). Chained; the last one wins.
   */
  prompt: z.string().trim().min(1).optional(),
});
/** What a `session_before_compact` handler may return. */
export type SessionBeforeCompactResult = z.infer<typeof sessionBeforeCompactResultSchema>;
/** What a `session_before_tree` handler may return. */
export type SessionBeforeTreeResult = z.infer<typeof summaryHookResultSchema>;

/**
 * The schemas return values are checked against, by event. Events not listed are observed
 * only: whatever their handlers return is ignored.
 */
export const extensionEventResultSchemas = {
  before_agent_start: beforeAgentStartResultSchema,
  context: contextResultSchema,
  tool_call: toolCallResultSchema,
  tool_result: toolResultResultSchema,
  session_before_compact: sessionBeforeCompactResultSchema,
  session_before_tree: summaryHookResultSchema,
} as const satisfies Partial<Record<ExtensionEventName, z.ZodType>>;

/** What a handler of each event may return (`undefined` for events that are observed only). */
export interface ExtensionEventResultMap {
  session_start: undefined;
  before_agent_start: BeforeAgentStartResult;
  context: ContextResult;
  before_provider_request: undefined;
  turn_start: undefined;
  message_start: undefined;
  message_update: undefined;
  message_end: undefined;
  tool_call: ToolCallResult;
  tool_result: ToolResultResult;
  turn_end: undefined;
  ttsr_triggered: undefined;
  model_select: undefined;
  agent_complete: undefined;
  session_before_compact: SessionBeforeCompactResult;
  session_compact: undefined;
  session_before_tree: SessionBeforeTreeResult;
  session_tree: undefined;
  session_shutdown: undefined;
}

/** What every `before_agent_start` handler amounted to. */
export interface BeforeAgentStartOutcome {
  /** The messages handlers added, in handler order. */
  messages: CustomMessageInput[];
  /** The system prompt to use: the last replacement, or the one emitted. */
  systemPrompt: string;
}

/** What every `context` handler amounted to. */
export interface ContextOutcome {
  /** The messages to send: the last replacement, or the ones emitted. */
  messages: AgentMessage[];
  changed: boolean;
}

/** What every `tool_call` handler amounted to. */
export type ToolCallOutcome =
  | { blocked: false }
  | { blocked: true; reason: string; extensionName: string };

/** What every `tool_result` handler amounted to: the result to give the model. */
export interface ToolResultOutcome {
  content: ToolResultContent[];
  isError: boolean;
  details: unknown;
  changed: boolean;
}

/** What every `session_before_compact` or `session_before_tree` handler amounted to. */
export type SummaryHookOutcome =
  | { cancelled: true; extensionName: string }
  | {
      cancelled: false;
      /** The supplied summary, if a handler supplied one; otherwise the runner makes its own. */
      summary?: string;
      details?: unknown;
      /** The extension whose summary won. */
      extensionName?: string;
    };

/** What every `session_before_compact` handler amounted to. */
export type SessionBeforeCompactOutcome =
  | { cancelled: true; extensionName: string }
  | {
      cancelled: false;
      /** The supplied summary, if a handler supplied one; otherwise the runner makes its own. */
      summary?: string;
      details?: unknown;
      /** The extension whose summary won. */
      extensionName?: string;
      /** The summarizing instruction a handler put in place of the runner's, if any. */
      prompt?: string;
    };

/** What {@link ExtensionRunner.emit} resolves to, by event. */
export interface ExtensionEventOutcomeMap {
  session_start: undefined;
  before_agent_start: BeforeAgentStartOutcome;
  context: ContextOutcome;
  before_provider_request: undefined;
  turn_start: undefined;
  message_start: undefined;
  message_update: undefined;
  message_end: undefined;
  tool_call: ToolCallOutcome;
  tool_result: ToolResultOutcome;
  turn_end: undefined;
  ttsr_triggered: undefined;
  model_select: undefined;
  agent_complete: undefined;
  session_before_compact: SessionBeforeCompactOutcome;
  session_compact: undefined;
  session_before_tree: SummaryHookOutcome;
  session_tree: undefined;
  session_shutdown: undefined;
}
