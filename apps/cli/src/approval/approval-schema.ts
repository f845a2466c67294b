import { z } from "zod";

/**
 * How much the model may do without asking: `ask` (default; writes and commands need a
 * yes), `auto-edit` (file edits allowed, commands asked), `yolo` (nothing asked).
 */
export const approvalModeSchema = z.enum(["ask", "auto-edit", "yolo"]);
/** An approval mode. */
export type ApprovalMode = z.infer<typeof approvalModeSchema>;

/**
 * A remembered permission: every call of `tool`, or (for `bash`) one exact `command`, or
 * a command starting with `commandPrefix` followed by a space (never one that chains or
 * redirects with `;`, `&`, `|`, `>`, `<`, backticks or `$(`).
 */
export const allowRuleSchema = z.object({
  tool: z.string().min(1),
  command: z.string().min(1).optional(),
  commandPrefix: z.string().min(1).optional(),
});
/** A remembered permission. */
export type AllowRule = z.infer<typeof allowRuleSchema>;

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

/** The `custom` entry type every approval decision is stored as in the session. */
export const APPROVAL_ENTRY_TYPE = "arbor.approval";

/** The data of an {@link APPROVAL_ENTRY_TYPE} entry. */
export const approvalRecordSchema = z.object({
  tool: z.string(),
  toolCallId: z.string(),
  /** What was asked about, as shown: the command, or the path. */
  subject: z.string(),
  mode: approvalModeSchema,
  decision: z.enum(["allowed", "denied"]),
  /** Who decided: the mode, a remembered rule, the user, or no terminal to ask on. */
  by: z.enum(["mode", "rule", "user", "no_terminal"]),
  /** Set when the user chose "always": the rule remembered. */
  remembered: allowRuleSchema.optional(),
});
/** The data of an approval entry. */
export type ApprovalRecord = z.infer<typeof approvalRecordSchema>;
