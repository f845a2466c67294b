import { z } from "zod";
import { agentFailureReasonSchema } from "./run-vocabulary.js";

/** A report the model delivered (or the text of its last answer when no schema is set). */
export const deliveredReportSchema = z.object({
  status: z.literal("delivered"),
  value: z.unknown(),
  /** True when a trivial repair was needed (JSON in a string, a fence, a wrapper). */
  repaired: z.boolean(),
  /** The stored answer that carried it. */
  entryId: z.string().optional(),
  /**
   * The metadata blocks extensions required beside the report (`requireFinalMeta`), by
   * block name; absent when none was required.
   */
  meta: z.record(z.string(), z.unknown()).optional(),
});

/** The report the runner writes when no valid report came. */
export const failedReportSchema = z.object({
  status: z.literal("failed"),
  reason: agentFailureReasonSchema,
  message: z.string(),
});

/** What a run hands back as its final report: delivered, or a failure written by the runner. */
export const finalReportSchema = z.discriminatedUnion("status", [
  deliveredReportSchema,
  failedReportSchema,
]);

/**
 * What a run hands back as its final report: the report the model delivered (through the
 * final-report tool, or the text of its last answer when no output schema is set), or a
 * failure report the runner wrote because no valid report came. `T` narrows the value.
 */
export type FinalReport<T = unknown> =
  | (Omit<z.infer<typeof deliveredReportSchema>, "value"> & { value: T })
  | z.infer<typeof failedReportSchema>;
