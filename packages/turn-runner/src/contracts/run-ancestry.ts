import { z } from "zod";

/** An id of a run or session as ancestry carries it: non-empty, without spaces or line breaks. */
const ancestryId = z
  .string()
  .min(1, "must not be empty")
  .max(200, "must be at most 200 characters")
  .regex(/^\S+$/, "must not contain spaces or line breaks");

/**
 * An agent path: the names of the agents from the top-level one down to this one, joined by
 * `:` (`main`, `main:researcher:summarizer`). Each name is non-empty and has no `:`, space
 * or line break.
 */
export const agentPathSchema = z
  .string()
  .max(500, "must be at most 500 characters")
  .regex(
    /^[^\s:]+(?::[^\s:]+)*$/,
    'must be agent names joined by ":" (such as "main:researcher"), without spaces',
  );

/**
 * Where a run sits among the runs of one request: its own id, the session it persists into,
 * the run the whole request started with (`originId`: the run's own id for a top-level
 * run), the run that started it (`parentId`: absent for a top-level run) and its agent path.
 * Every event of a run carries it as `ancestry`, and so do accounting records and spans.
 */
export const runAncestrySchema = z.object({
  /** The run's own id (the same as the event's `runId`). */
  runId: z.string().min(1),
  /** The session the run persists into. */
  sessionId: z.string().min(1),
  /** The run the whole request started with; the run's own id when it has no parent. */
  originId: ancestryId,
  /** The run that started this one (a sub-agent's caller, a server's parent run). */
  parentId: ancestryId.optional(),
  /** The agent names from the top-level agent to this one, joined by `:`. */
  agentPath: agentPathSchema,
});

/** Where a run sits among the runs of one request (see {@link runAncestrySchema}). */
export type RunAncestry = z.infer<typeof runAncestrySchema>;

/**
 * The `ancestry` option of an agent: what a host knows of the runs around the agent's runs.
 * `originId` defaults to each run's own id, `agentPath` to `main`; `parentId` is absent for
 * a top-level agent.
 */
export const ancestryOptionsSchema = z.strictObject({
  originId: ancestryId.optional(),
  parentId: ancestryId.optional(),
  agentPath: agentPathSchema.optional(),
});

/** The `ancestry` option of an agent (see {@link ancestryOptionsSchema}). */
export type AncestryOptions = z.infer<typeof ancestryOptionsSchema>;

/** The agent path of a top-level agent with no name given. */
export const DEFAULT_AGENT_PATH = "main";

/**
 * The ancestry of one run from the agent's option and the run's ids: `originId` defaults to
 * the run's id, `agentPath` to {@link DEFAULT_AGENT_PATH}.
 */
export function runAncestry(
  options: AncestryOptions | undefined,
  runId: string,
  sessionId: string,
): RunAncestry {
  return {
    runId,
    sessionId,
    originId: options?.originId ?? runId,
    ...(options?.parentId !== undefined ? { parentId: options.parentId } : {}),
    agentPath: options?.agentPath ?? DEFAULT_AGENT_PATH,
  };
}
