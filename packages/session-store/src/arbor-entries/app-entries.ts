import { z } from "zod";
import { countField, nameField, nonEmptyTextField, textField, wordField } from "./stored-fields.js";

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

/**
 * The `custom` entry that links a workspace snapshot (`@arbor/workspace` checkpoints) to the
 * point of the tree it was taken at.
 */
export const CHECKPOINT_CUSTOM_TYPE = "arbor.checkpoint";

/** The most paths a checkpoint entry lists as changed or skipped. */
export const MAX_CHECKPOINT_PATHS = 100_000;

/** A file a snapshot left out (too large, unreadable), as a checkpoint entry names it. */
export const checkpointSkippedFileSchema = z.looseObject({
  /** Path relative to the workspace, `/`-separated. */
  path: nameField,
  reason: wordField,
  /** The file's size in bytes when it was too large. */
  bytes: z.number().int().nonnegative().optional(),
});

/**
 * The data of a {@link CHECKPOINT_CUSTOM_TYPE} entry: the snapshot taken at this point of
 * the tree (a 40- or 64-digit hex sha), the files changed since the previous checkpoint,
 * the files left out, and the tool call it follows. Loose: fields added later survive.
 */
export const checkpointEntryDataSchema = z.looseObject({
  snapshotId: z
    .string()
    .regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/, "a snapshot id is a 40- or 64-digit hex sha"),
  changed: z.array(nameField).max(MAX_CHECKPOINT_PATHS),
  skipped: z.array(checkpointSkippedFileSchema).max(MAX_CHECKPOINT_PATHS).optional(),
  toolCallId: nameField.optional(),
  /**
   * Why it was taken: `before_tool` (before a turn's first writing tool, catching hand
   * edits), `after_tool`, `before_rewind` (the state a rewind left, so it can be undone) or
   * `rewind` (the files were brought back to `targetEntryId`'s state).
   */
  reason: wordField.optional(),
  /** For a `rewind`: the entry whose files were brought back. */
  targetEntryId: nameField.optional(),
  /** How many paths changed when `changed` lists only the first of them. */
  changedCount: countField.optional(),
});
/** The data of a {@link CHECKPOINT_CUSTOM_TYPE} entry. */
export type CheckpointEntryData = z.infer<typeof checkpointEntryDataSchema>;
