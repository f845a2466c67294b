import { z } from "zod";

/** The longest text a task-status field takes. */
const MAX_STATUS_TEXT = 2_000;

const statusText = z.string().trim().min(1, "must not be empty").max(MAX_STATUS_TEXT);

/**
 * A status the model reports through the built-in `task_status` tool (option
 * `taskStatusTool: true`): where the task stands, what it does now, what is done and what
 * is left.
 */
export const taskStatusSchema = z.strictObject({
  /** `in_progress` while working, `blocked` when it cannot go on alone, `completed` when done. */
  status: z.enum(["in_progress", "blocked", "completed"]),
  /** What the agent is doing now, in one or two sentences. */
  message: statusText,
  /** What is done so far. */
  done: statusText.optional(),
  /** What is left to do. */
  pending: statusText.optional(),
});

/** A status the model reports (see {@link taskStatusSchema}). */
export type TaskStatus = z.infer<typeof taskStatusSchema>;
