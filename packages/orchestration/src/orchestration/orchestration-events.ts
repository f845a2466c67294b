import { usageSchema } from "@arbor/providers";
import { type AgentEvent, agentEventSchema } from "@arbor/turn-runner";
import { z } from "zod";
import { childOutcomeSchema, childRoleSchema } from "./child-records.js";
import { orchestrationResultSchema } from "./orchestration-result.js";

/**
 * What every event of a host run carries: the run's id (the root agent's run) and its place
 * in the run's own stream (1, 2, 3, …), so a reader that lost its connection resumes after
 * the last one it saw, whichever agent of the tree the event came from.
 */
const runEnvelope = {
  runId: z.string(),
  seq: z.number().int().positive(),
};

const childFields = {
  ...runEnvelope,
  childSessionId: z.string(),
  parentSessionId: z.string(),
  /** The child's own run (its turn-runner events carry it as `ancestry.runId`). */
  childRunId: z.string(),
  /** The run of the agent that started it. */
  parentRunId: z.string(),
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

/**
 * An agent handed the request on: a router chose a destination (`role: "destination"`), or
 * an agent's answer goes to its handoff (`role: "handoff"`). The `child_start` of `to` follows.
 */
export const handoffEventSchema = z.object({
  type: z.literal("handoff"),
  ...runEnvelope,
  role: z.enum(["destination", "handoff"]),
  /** The agent path of the agent that handed on. */
  from: z.string(),
  /** The agent path of the agent that takes over. */
  to: z.string(),
  /** The router's note for the destination, when it left one. */
  message: z.string().optional(),
});

/** The run of an agent tree ended; the last event of its stream. */
export const orchestrationEndEventSchema = z.object({
  type: z.literal("orchestration_end"),
  ...runEnvelope,
  result: orchestrationResultSchema,
});

/** An event only an agent tree's run emits (see {@link runEventSchema}). */
export const orchestrationOwnEventSchema = z.discriminatedUnion("type", [
  childStartEventSchema,
  childEndEventSchema,
  handoffEventSchema,
  orchestrationEndEventSchema,
]);

/**
 * One event of what a host run streams (`AgentHost.prompt`, `runAgent`): the turn-runner
 * events of the agents that make the answer — the root, its router destinations and
 * handoffs; each keeps its own run and agent path in `ancestry` — plus, for an agent tree,
 * `child_start` / `child_end` for every child at any depth (advisors and sub-agents show
 * only these), `handoff` when an agent hands the request on, and `orchestration_end` last.
 * `runId` and `seq` are the host run's: one sequence over the whole tree.
 * @example
 * ```ts
 * const event = runEventSchema.parse(JSON.parse(message.data));
 * if (event.type === "child_end") console.log(event.agentPath, event.outcome);
 * ```
 */
export const runEventSchema = z.union([agentEventSchema, orchestrationOwnEventSchema]);

/** A `child_start` event. */
export type ChildStartEvent = z.infer<typeof childStartEventSchema>;
/** A `child_end` event. */
export type ChildEndEvent = z.infer<typeof childEndEventSchema>;
/** A `handoff` event. */
export type HandoffEvent = z.infer<typeof handoffEventSchema>;
/** An `orchestration_end` event. */
export type OrchestrationEndEvent = z.infer<typeof orchestrationEndEventSchema>;
/** One event of what a host run streams (see {@link runEventSchema}). */
export type RunEvent =
  | AgentEvent
  | ChildStartEvent
  | ChildEndEvent
  | HandoffEvent
  | OrchestrationEndEvent;
