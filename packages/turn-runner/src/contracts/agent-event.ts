import { MODEL_ERROR_KINDS } from "@arbor/providers";
import { z } from "zod";
import { accountingSinkFailedSchema, modelUnpricedSchema } from "./accounting-events.js";
import { agentResultSchema } from "./agent-result.js";
import { eventEnvelope, turnIndexSchema } from "./event-envelope.js";
import {
  agentFailedSchema,
  agentFinishedSchema,
  agentStartedSchema,
  agentUpdateSchema,
} from "./progress-events.js";
import {
  answerProblemKindSchema,
  compactionReasonSchema,
  failoverActionSchema,
  finalTurnReasonSchema,
  targetRefSchema,
} from "./run-vocabulary.js";

const envelope = eventEnvelope;

const turnIndex = turnIndexSchema;

const turnStartSchema = z.object({ ...envelope, type: z.literal("turn_start"), turnIndex });

const textDeltaSchema = z.object({
  ...envelope,
  type: z.literal("text_delta"),
  turnIndex,
  index: z.number().int().nonnegative(),
  delta: z.string(),
});

const thinkingDeltaSchema = z.object({
  ...envelope,
  type: z.literal("thinking_delta"),
  turnIndex,
  index: z.number().int().nonnegative(),
  delta: z.string(),
});

const toolcallDeltaSchema = z.object({
  ...envelope,
  type: z.literal("toolcall_delta"),
  turnIndex,
  index: z.number().int().nonnegative(),
  toolCallId: z.string(),
  toolName: z.string(),
  delta: z.string(),
});

const messageEndSchema = z.object({
  ...envelope,
  type: z.literal("message_end"),
  turnIndex,
  entryId: z.string(),
  target: targetRefSchema,
  stopReason: z.string(),
});

const toolResultSchema = z.object({
  ...envelope,
  type: z.literal("tool_result"),
  turnIndex,
  entryId: z.string(),
  toolCallId: z.string(),
  toolName: z.string(),
  isError: z.boolean(),
});

const turnEndSchema = z.object({ ...envelope, type: z.literal("turn_end"), turnIndex });

const retrySchema = z.object({
  ...envelope,
  type: z.literal("retry"),
  turnIndex,
  attempt: z.number().int().positive(),
  kind: z.enum(MODEL_ERROR_KINDS),
  message: z.string(),
  target: targetRefSchema,
  action: failoverActionSchema,
  delayMs: z.number().nonnegative(),
});

/** A stream rule that fired, as `ttsr_triggered` carries it: the rule, not only its name. */
export const triggeredRuleSchema = z.object({
  name: z.string(),
  /** The file the rule was loaded from, when it came from one. */
  path: z.string().optional(),
  /** The reminder injected for the model. */
  content: z.string(),
  /** Which streams the rule watches (`text`, `thinking`, `tool`, `tool:<name>`, …). */
  scope: z.array(z.string()),
  /** Whether the rule cuts the answer (`always`), or only queues its reminder (`never`), … */
  interruptMode: z.string().optional(),
  /** Whether the cut answer stays on the path (`keep`) or is branched away (`discard`). */
  contextMode: z.enum(["discard", "keep"]).optional(),
});
/** A stream rule that fired (see {@link triggeredRuleSchema}). */
export type TriggeredRule = z.infer<typeof triggeredRuleSchema>;

const ttsrTriggeredSchema = z.object({
  ...envelope,
  type: z.literal("ttsr_triggered"),
  turnIndex,
  /** The rules that fired, whole. */
  rules: z.array(triggeredRuleSchema),
  contextMode: z.enum(["discard", "keep"]),
  /** False for rules with `interruptMode: "never"`: the reminder was queued, the answer not cut. */
  interrupted: z.boolean(),
  /** The aborted partial answer, kept in the tree (when the stream was interrupted). */
  partialEntryId: z.string().optional(),
});

/** The runner forced a final turn: no tool but the final report is offered any more. */
const finalTurnSchema = z.object({
  ...envelope,
  type: z.literal("final_turn"),
  turnIndex,
  reason: finalTurnReasonSchema,
});

/**
 * A compaction was tried: before a request (`threshold`), after a context overflow
 * (`overflow`), or on request (`manual`, outside a run: no `turnIndex`).
 */
const compactionSchema = z.object({
  ...envelope,
  type: z.literal("compaction"),
  turnIndex: turnIndex.optional(),
  reason: compactionReasonSchema,
  status: z.enum(["compacted", "cancelled", "nothing_to_compact", "disabled", "failed"]),
  /** The `compaction` entry, when one was stored. */
  entryId: z.string().optional(),
  tokensBefore: z.number().optional(),
  /** Why it failed. */
  message: z.string().optional(),
});

/** A title was generated after the first exchange (`title` undefined: it failed). */
const titleSchema = z.object({
  ...envelope,
  type: z.literal("title"),
  title: z.string().optional(),
  error: z.string().optional(),
});

/**
 * An answer was not accepted (empty, cut off, no or an invalid final report, tools in the
 * final turn): it was moved off the path and a hidden feedback message was appended for the
 * retry (`feedbackEntryId`), unless retries were exhausted.
 */
const answerRejectedSchema = z.object({
  ...envelope,
  type: z.literal("answer_rejected"),
  turnIndex,
  attempt: z.number().int().positive(),
  problems: z.array(answerProblemKindSchema),
  entryId: z.string(),
  feedbackEntryId: z.string().optional(),
});

/**
 * The context guard acted before a request: it moved to a target with a bigger window, or
 * forced the final turn (recorded as an `arbor.context-guard` entry).
 */
const contextGuardSchema = z.object({
  ...envelope,
  type: z.literal("context_guard"),
  turnIndex,
  /**
   * `sent_over_limit`: the final turn was already forced and the prompt is still over the
   * limit; the request is sent anyway (the result counts these in `overLimitRequests`).
   */
  action: z.enum(["switch_target", "force_final", "sent_over_limit"]),
  /** Estimated prompt tokens. */
  estimate: z.number(),
  /** The prompt limit of the target the request goes to. */
  limit: z.number(),
  target: targetRefSchema,
});

/** The run ended; the last event of every run. */
const agentEndSchema = z.object({
  ...envelope,
  type: z.literal("agent_end"),
  result: agentResultSchema,
});

/**
 * One event of a run, discriminated on `type` (snake_case, as plugin authors know them).
 * Every event carries `runId`, `seq` and `ancestry`; each event of a turn carries its
 * `turnIndex`.
 *
 * @example
 * ```ts
 * // A client of the server's SSE stream checks what it receives:
 * const event = agentEventSchema.parse(JSON.parse(message.data));
 * ```
 */
export const agentEventSchema = z.discriminatedUnion("type", [
  turnStartSchema,
  textDeltaSchema,
  thinkingDeltaSchema,
  toolcallDeltaSchema,
  messageEndSchema,
  toolResultSchema,
  turnEndSchema,
  retrySchema,
  ttsrTriggeredSchema,
  finalTurnSchema,
  compactionSchema,
  titleSchema,
  answerRejectedSchema,
  contextGuardSchema,
  agentStartedSchema,
  agentUpdateSchema,
  agentFinishedSchema,
  agentFailedSchema,
  modelUnpricedSchema,
  accountingSinkFailedSchema,
  agentEndSchema,
]);

/** One event of a run (see {@link agentEventSchema}). */
export type AgentEvent = z.infer<typeof agentEventSchema>;

/** The `type` of an {@link AgentEvent}. */
export type AgentEventType = AgentEvent["type"];

/** The fields of an event that say where it belongs: its run, its place in it, the run's ancestry. */
export type AgentEventEnvelope = Pick<AgentEvent, "runId" | "seq" | "ancestry">;

/**
 * An event as the loop emits it, before the run stamps its id, sequence number and ancestry
 * on it.
 */
export type AgentEventPayload = AgentEvent extends infer E
  ? E extends AgentEvent
    ? Omit<E, keyof AgentEventEnvelope>
    : never
  : never;
