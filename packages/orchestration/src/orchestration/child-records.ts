import { ancestryEntrySchema } from "@arbor/session-store";
import { z } from "zod";

/*
 * The custom entries of child runs are declared once, in `@arbor/session-store`; they are
 * re-exported here, where orchestration's users have always found them.
 */
export {
  ANCESTRY_CUSTOM_TYPE,
  type AncestryEntry,
  ancestryEntrySchema,
  CHILD_SESSION_CUSTOM_TYPE,
  type ChildSessionEntry,
  childSessionEntrySchema,
  FINAL_ANSWER_CUSTOM_TYPE,
} from "@arbor/session-store";

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
export const ancestrySchema = ancestryEntrySchema.pick({
  originId: true,
  parentId: true,
  agentPath: true,
});
/** Where a run sits in its orchestration. */
export type Ancestry = z.infer<typeof ancestrySchema>;
