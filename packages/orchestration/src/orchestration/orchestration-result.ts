import { usageSchema } from "@arbor/providers";
import { agentFailureSchema, agentSuccessSchema } from "@arbor/turn-runner";
import { z } from "zod";
import { childOutcomeSchema, childRoleSchema } from "./child-records.js";

/** One child run of an orchestration and what it used. */
export const childRunSchema = z.object({
  sessionId: z.string(),
  /** Where its session is stored. */
  location: z.string(),
  parentId: z.string(),
  role: childRoleSchema,
  agent: z.string(),
  agentPath: z.string(),
  outcome: childOutcomeSchema,
  message: z.string().optional(),
  /** The child's own tokens and cost, its children not included. */
  usage: usageSchema,
  cost: z.number().nonnegative(),
});
/** One child run of an orchestration. */
export type ChildRun = z.infer<typeof childRunSchema>;

const orchestrationFields = {
  /** The agent path of the agent that produced the final answer (`main`, `main:billing`). */
  finalAgent: z.string(),
  /** The session of the final agent (the root's when it answered itself). */
  finalSession: z.object({ id: z.string(), location: z.string() }),
  /** Every child run (advisors, destinations, handoffs, sub-agents at any depth), in start order. */
  children: z.array(childRunSchema),
  /** The root agent's own tokens and cost; `usage` and `cost` hold the totals of the whole run. */
  rootUsage: usageSchema,
  rootCost: z.number().nonnegative(),
};

/**
 * What {@link runAgent} resolves to: the turn runner's result object of the final agent
 * (`success`, `finalReport`, `reason`, `message`, `turns`), with `runId` and `session` of
 * the root run, `usage` and `cost` rolled up over the root and every child, plus
 * `finalAgent`, `finalSession`, `children` (per-child accounting) and the root's own usage.
 */
export const orchestrationResultSchema = z.discriminatedUnion("success", [
  agentSuccessSchema.extend(orchestrationFields),
  agentFailureSchema.extend(orchestrationFields),
]);
/** What {@link runAgent} resolves to (see {@link orchestrationResultSchema}). */
export type OrchestrationResult = z.infer<typeof orchestrationResultSchema>;
