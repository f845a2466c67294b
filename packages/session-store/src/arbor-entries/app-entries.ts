import { z } from "zod";
import { nameField, nonEmptyTextField, textField, wordField } from "./stored-fields.js";

/** The `custom` entry every approval decision of the terminal app is stored as. */
export const APPROVAL_CUSTOM_TYPE = "arbor.approval";

/**
 * The `custom` entry the interactive app stores in a session it runs on an agent file, so
 * `arbor -c` / `-r` / `-s` resume it on the same agent tree.
 */
export const AGENT_FILE_CUSTOM_TYPE = "arbor.cli.agent-file";

/**
 * A remembered permission: every call of `tool`, or (for `bash`) one exact `command`, or
 * a command starting with `commandPrefix` followed by a space (never one that chains or
 * redirects with `;`, `&`, `|`, `>`, `<`, backticks or `$(`).
 */
export const allowRuleSchema = z.looseObject({
  tool: nameField,
  command: nonEmptyTextField.optional(),
  commandPrefix: nonEmptyTextField.optional(),
});
/** A remembered permission. */
export type AllowRule = z.infer<typeof allowRuleSchema>;

/**
 * The data of an {@link APPROVAL_CUSTOM_TYPE} entry: the tool call asked about, what was
 * shown (`subject`: the command, or the path), the approval mode (`ask`, `auto-edit`,
 * `yolo`), the `decision` (`allowed` or `denied`), who decided (`by`: `mode`, `rule`,
 * `user`, `no_terminal`) and, when the user chose "always", the rule remembered.
 */
export const approvalRecordSchema = z.looseObject({
  tool: nameField,
  toolCallId: nameField,
  subject: textField,
  mode: wordField,
  decision: wordField,
  by: wordField,
  remembered: allowRuleSchema.optional(),
});
/** The data of an {@link APPROVAL_CUSTOM_TYPE} entry. */
export type ApprovalRecord = z.infer<typeof approvalRecordSchema>;

/** The data of an {@link AGENT_FILE_CUSTOM_TYPE} entry: the agent file's absolute path. */
export const agentFileEntrySchema = z.looseObject({ file: nameField });
/** The data of an {@link AGENT_FILE_CUSTOM_TYPE} entry. */
export type AgentFileEntry = z.infer<typeof agentFileEntrySchema>;
