import { usageSchema } from "@arbor/providers";
import { type AgentEvent, agentEventSchema } from "@arbor/turn-runner";
import { z } from "zod";
import { childOutcomeSchema, childRoleSchema } from "./child-records.js";
import { orchestrationResultSchema } from "./orchestration-result.js";

const childFields = {
  /** The orchestration: the id of its root session. */
  orchestrationId: z.string(),
  /** Position in the orchestration's own stream: 1, 2, 3, … */
  orchestrationSeq: z.number().int().positive(),
  childSessionId: z.string(),
  parentSessionId: z.string(),
  role: childRoleSchema,
  agent: z.string(),
  agentPath: z.string(),
};

/** A child run started (its session exists and its parent recorded it as `running`). */
export const childStartEventSchema = z.object({ type: z.literal("child_start"), ...childFields });

/** A child run ended, with its outcome and its own accounting. */
export const childEndEventSchema = z.object({
  type: z.literal("child_end"),
  ...childFields,
  outcome: childOutcomeSchema,
  message: z.string().optional(),
  usage: usageSchema,
  cost: z.number().nonnegative(),
});

/** The orchestration ended; the last event of its stream. */
export const orchestrationEndEventSchema = z.object({
  type: z.literal("orchestration_end"),
  orchestrationId: z.string(),
  orchestrationSeq: z.number().int().positive(),
  result: orchestrationResultSchema,
});

/** An event only an orchestration emits (see {@link orchestrationEventSchema}). */
export const orchestrationOwnEventSchema = z.discriminatedUnion("type", [
  childStartEventSchema,
  childEndEventSchema,
  orchestrationEndEventSchema,
]);

/**
 * One event of an orchestration's stream: the turn-runner events of the agents that make
 * the answer (the root, its router destinations and handoffs, each run's events with its
 * own `runId` and `seq`), plus `child_start` / `child_end` for every child at any depth
 * (advisors and sub-agents show only these), ending with `orchestration_end`.
 * @example
 * ```ts
 * const event = orchestrationEventSchema.parse(JSON.parse(message.data));
 * if (event.type === "child_end") console.log(event.agentPath, event.outcome);
 * ```
 */
export const orchestrationEventSchema = z.union([agentEventSchema, orchestrationOwnEventSchema]);

/** A `child_start` event. */
export type ChildStartEvent = z.infer<typeof childStartEventSchema>;
/** A `child_end` event. */
export type ChildEndEvent = z.infer<typeof childEndEventSchema>;
/** An `orchestration_end` event. */
export type OrchestrationEndEvent = z.infer<typeof orchestrationEndEventSchema>;
/** One event of an orchestration's stream (see {@link orchestrationEventSchema}). */
export type OrchestrationEvent =
  | AgentEvent
  | ChildStartEvent
  | ChildEndEvent
  | OrchestrationEndEvent;
