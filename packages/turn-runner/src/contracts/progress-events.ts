import { z } from "zod";
import { eventEnvelope, turnIndexSchema } from "./event-envelope.js";
import { agentFailureReasonSchema, targetRefSchema } from "./run-vocabulary.js";
import { taskStatusSchema } from "./task-status.js";

/**
 * The progress events of a run, for watchers that want a short account of it (a parent
 * agent, a dashboard) rather than every delta: the run started, the agent reports where it
 * stands, the run finished or failed. They come beside the detailed events, not instead.
 */

/** The run started: the first event of every run. */
export const agentStartedSchema = z.object({
  ...eventEnvelope,
  type: z.literal("agent_started"),
  /** The model the first request goes to. */
  target: targetRefSchema,
  /** The turns the run may take. */
  maxTurns: z.number().int().nonnegative(),
});

/**
 * Where the run stands: a turn began (`turn`), or the model reported its status through
 * the `task_status` tool (`task_status`, with `taskStatus`).
 */
export const agentUpdateSchema = z.object({
  ...eventEnvelope,
  type: z.literal("agent_update"),
  turnIndex: turnIndexSchema,
  kind: z.enum(["turn", "task_status"]),
  /** A one-line account for people (`turn 2 of 20`, the model's status message). */
  message: z.string(),
  /** The status the model reported (kind `task_status`). */
  taskStatus: taskStatusSchema.optional(),
});

/** The run ended with an accepted answer; `agent_end` with the result follows. */
export const agentFinishedSchema = z.object({
  ...eventEnvelope,
  type: z.literal("agent_finished"),
  turns: z.number().int().nonnegative(),
  /** US dollars of every model call of the run. */
  cost: z.number().nonnegative(),
});

/** The run ended without an answer; `agent_end` with the result follows. */
export const agentFailedSchema = z.object({
  ...eventEnvelope,
  type: z.literal("agent_failed"),
  reason: agentFailureReasonSchema,
  message: z.string(),
  turns: z.number().int().nonnegative(),
  cost: z.number().nonnegative(),
});
