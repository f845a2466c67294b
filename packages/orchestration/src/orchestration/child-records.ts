import { usageSchema } from "@arbor/providers";
import { z } from "zod";

/** The custom entry a parent session gets for each child it starts, and again when it ends. */
export const CHILD_SESSION_CUSTOM_TYPE = "arbor.orchestration.child";

/** The custom entry a child session starts with: who started it, and where it sits in the run. */
export const ANCESTRY_CUSTOM_TYPE = "arbor.orchestration.ancestry";

/**
 * The hidden custom message the root session gets when another agent of the run (a router's
 * destination, a handoff) gave the final answer: the answer the user got, so the root agent
 * sees it on the next prompt of the session. `details` name the agent and its session.
 */
export const FINAL_ANSWER_CUSTOM_TYPE = "arbor.orchestration.answer";

/** What a child run is to its parent. */
export const childRoleSchema = z.enum(["advisor", "destination", "handoff", "subagent"]);
/** What a child run is to its parent. */
export type ChildRole = z.infer<typeof childRoleSchema>;

/**
 * How a child run ended: `running` (written when it starts), `succeeded`, `failed`,
 * `aborted`, `timed_out` (its `timeoutMs` passed), or `interrupted` (the process died while
 * it ran; written when the parent is resumed).
 */
export const childOutcomeSchema = z.enum([
  "running",
  "succeeded",
  "failed",
  "aborted",
  "timed_out",
  "interrupted",
]);
/** How a child run ended. */
export type ChildOutcome = z.infer<typeof childOutcomeSchema>;

/** Where a run sits: the root session, the parent session, and the agent names from the root. */
export const ancestrySchema = z.object({
  /** The root session of the whole run. */
  originId: z.string(),
  /** The session that started this one. */
  parentId: z.string(),
  /** Agent names from the root, joined by `:` (`main:researcher:summarizer`). */
  agentPath: z.string(),
});
/** Where a run sits in its orchestration. */
export type Ancestry = z.infer<typeof ancestrySchema>;

/** The data of an {@link ANCESTRY_CUSTOM_TYPE} entry. */
export const ancestryEntrySchema = ancestrySchema.extend({
  role: childRoleSchema,
  /** The child's agent name. */
  agent: z.string(),
  /** The agent file it was defined in (`<inline>` for one given in code). */
  file: z.string(),
  /** The root run's id (the turn runner's ancestry `originId` of every run of the request). */
  originRunId: z.string(),
  /** The id of this child's run (its events' `runId`). */
  runId: z.string(),
  /** The id of the parent's run that started it. */
  parentRunId: z.string(),
});
/** The data of an {@link ANCESTRY_CUSTOM_TYPE} entry. */
export type AncestryEntry = z.infer<typeof ancestryEntrySchema>;

/** The data of a {@link CHILD_SESSION_CUSTOM_TYPE} entry. */
export const childSessionEntrySchema = z.object({
  childSessionId: z.string(),
  role: childRoleSchema,
  agent: z.string(),
  agentPath: z.string(),
  outcome: childOutcomeSchema,
  /** Why it failed, was aborted or interrupted. */
  message: z.string().optional(),
  /** The child's own tokens and cost (its children are recorded in its own session). */
  usage: usageSchema.optional(),
  cost: z.number().nonnegative().optional(),
});
/** The data of a {@link CHILD_SESSION_CUSTOM_TYPE} entry. */
export type ChildSessionEntry = z.infer<typeof childSessionEntrySchema>;
