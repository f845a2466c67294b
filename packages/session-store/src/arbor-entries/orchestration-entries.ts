import { z } from "zod";
import { nameField, textField, tokenUsageField, wordField } from "./stored-fields.js";

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

/**
 * The data of a {@link CHILD_SESSION_CUSTOM_TYPE} entry. `role` is one of `advisor`,
 * `destination`, `handoff`, `subagent`; `outcome` one of `running` (written when the child
 * starts), `succeeded`, `failed`, `aborted`, `timed_out`, `interrupted` (written when the
 * parent is resumed after the process died). Words a newer writer adds are read as written.
 */
export const childSessionEntrySchema = z.looseObject({
  childSessionId: nameField,
  role: wordField,
  agent: nameField,
  agentPath: nameField,
  outcome: wordField,
  /** Why it failed, was aborted or interrupted. */
  message: textField.optional(),
  /** The child's own tokens (its children are recorded in its own session). */
  usage: tokenUsageField.optional(),
  /** The child's own cost in US dollars. */
  cost: z.number().finite().nonnegative().optional(),
});
/** The data of a {@link CHILD_SESSION_CUSTOM_TYPE} entry. */
export type ChildSessionEntry = z.infer<typeof childSessionEntrySchema>;

/** The data of an {@link ANCESTRY_CUSTOM_TYPE} entry: where a child run sits in its orchestration. */
export const ancestryEntrySchema = z.looseObject({
  /** The root session of the whole run. */
  originId: nameField,
  /** The session that started this one. */
  parentId: nameField,
  /** Agent names from the root, joined by `:` (`main:researcher:summarizer`). */
  agentPath: nameField,
  /** What the child is to its parent (see {@link childSessionEntrySchema}). */
  role: wordField,
  /** The child's agent name. */
  agent: nameField,
  /** The agent file it was defined in (`<inline>` for one given in code). */
  file: nameField,
  /** The root run's id (the turn runner's ancestry `originId` of every run of the request). */
  originRunId: nameField,
  /** The id of this child's run (its events' `runId`). */
  runId: nameField,
  /** The id of the parent's run that started it. */
  parentRunId: nameField,
});
/** The data of an {@link ANCESTRY_CUSTOM_TYPE} entry. */
export type AncestryEntry = z.infer<typeof ancestryEntrySchema>;

/** The details of a {@link FINAL_ANSWER_CUSTOM_TYPE} message: who gave the answer, where. */
export const finalAnswerDetailsSchema = z.looseObject({
  /** The name of the agent that answered. */
  agent: nameField,
  /** The id of the session it answered in. */
  session: nameField,
});
/** The details of a {@link FINAL_ANSWER_CUSTOM_TYPE} message. */
export type FinalAnswerDetails = z.infer<typeof finalAnswerDetailsSchema>;
