import { z } from "zod";
import { eventEnvelope, turnIndexSchema } from "./event-envelope.js";
import { targetRefSchema } from "./run-vocabulary.js";

/**
 * A model without a price in the catalogue served (or tried) a call: its cost is counted
 * as 0. Reported once per model per run, at its first call.
 */
export const modelUnpricedSchema = z.object({
  ...eventEnvelope,
  type: z.literal("model_unpriced"),
  turnIndex: turnIndexSchema,
  target: targetRefSchema,
  message: z.string(),
});

/** The `accountingSink` option threw or rejected on a record; the run went on. */
export const accountingSinkFailedSchema = z.object({
  ...eventEnvelope,
  type: z.literal("accounting_sink_failed"),
  turnIndex: turnIndexSchema,
  /** What the sink threw. */
  message: z.string(),
});
