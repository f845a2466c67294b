import { z } from "zod";
import { runAncestrySchema } from "./run-ancestry.js";

/**
 * What every event of a run carries: the run's id, its place in the run (1, 2, 3, …), so a
 * subscriber that lost its connection can resume after the last one it saw, and the run's
 * ancestry (session, origin and parent runs, agent path), so events of several runs — a
 * parent's and its sub-agents' — can be told apart in one stream.
 */
export const eventEnvelope = {
  runId: z.string(),
  seq: z.number().int().positive(),
  ancestry: runAncestrySchema,
};

/** The index of a turn within its run (0, 1, 2, …). */
export const turnIndexSchema = z.number().int().nonnegative();
