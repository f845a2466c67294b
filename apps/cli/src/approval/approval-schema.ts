import { allowRuleSchema } from "@arbor/session-store";
import { z } from "zod";

/*
 * A remembered rule and the session's approval entries are declared once, in
 * `@arbor/session-store`: a rule the user chose "always" for is stored in both places.
 */
export {
  type AllowRule,
  APPROVAL_CUSTOM_TYPE as APPROVAL_ENTRY_TYPE,
  type ApprovalRecord,
  allowRuleSchema,
  approvalRecordSchema,
} from "@arbor/session-store";

/**
 * How much the model may do without asking: `ask` (default; writes and commands need a
 * yes), `auto-edit` (file edits allowed, commands asked), `sandbox` (file edits allowed,
 * commands run in bubblewrap without asking, a command that asks to leave it is asked),
 * `yolo` (nothing asked).
 */
export const approvalModeSchema = z.enum(["ask", "auto-edit", "sandbox", "yolo"]);
/** An approval mode. */
export type ApprovalMode = z.infer<typeof approvalModeSchema>;

/** `approvals.json`: allow rules per project, keyed by the project's real path. */
export const approvalFileSchema = z.object({
  version: z.literal(1),
  projects: z.record(z.string().min(1), z.object({ allow: z.array(allowRuleSchema) })),
});
/** `approvals.json`. */
export type ApprovalFile = z.infer<typeof approvalFileSchema>;

/** What the user answered. */
export const approvalAnswerSchema = z.enum(["yes", "no", "always"]);
/** What the user answered. */
export type ApprovalAnswer = z.infer<typeof approvalAnswerSchema>;
