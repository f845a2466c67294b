import { z } from "zod";

/*
 * The lines of a Claude Code session file (`~/.claude/projects/<cwd>/<session>.jsonl`), as
 * far as the importer reads them. Objects are loose: every field is kept in provenance or
 * raw entries, and newer versions add fields freely.
 */

/** A content block of a Claude Code message (Anthropic Messages API shape). */
export const claudeBlockSchema = z.looseObject({ type: z.string() });
/** What {@link claudeBlockSchema} accepts. */
export type ClaudeBlock = z.infer<typeof claudeBlockSchema>;

/** Token usage as the Anthropic API reports it. */
export const claudeUsageSchema = z.looseObject({
  input_tokens: z.number().optional(),
  output_tokens: z.number().optional(),
  cache_read_input_tokens: z.number().optional(),
  cache_creation_input_tokens: z.number().optional(),
});
/** What {@link claudeUsageSchema} accepts. */
export type ClaudeUsage = z.infer<typeof claudeUsageSchema>;

/** The `message` of a user or assistant line. */
export const claudeMessageSchema = z.looseObject({
  role: z.string(),
  id: z.string().optional(),
  model: z.string().optional(),
  content: z.union([z.string(), z.array(claudeBlockSchema)]).optional(),
  stop_reason: z.string().nullable().optional(),
  usage: claudeUsageSchema.nullable().optional(),
});
/** What {@link claudeMessageSchema} accepts. */
export type ClaudeMessage = z.infer<typeof claudeMessageSchema>;

/** The fields every Claude Code line may carry. */
export const claudeLineSchema = z.looseObject({
  type: z.string(),
  uuid: z.string().min(1).optional(),
  parentUuid: z.string().nullable().optional(),
  logicalParentUuid: z.string().nullable().optional(),
  sessionId: z.string().optional(),
  timestamp: z.string().optional(),
  cwd: z.string().optional(),
  version: z.string().optional(),
  isSidechain: z.boolean().optional(),
  agentId: z.string().optional(),
  isCompactSummary: z.boolean().optional(),
  subtype: z.string().optional(),
  message: claudeMessageSchema.optional(),
  summary: z.string().optional(),
  customTitle: z.string().optional(),
});
/** What {@link claudeLineSchema} accepts. */
export type ClaudeLine = z.infer<typeof claudeLineSchema>;

/**
 * Line types Claude Code writes that carry no conversation (file snapshots, queue
 * operations, progress): kept as `claude-code.<type>` custom entries.
 */
export const CLAUDE_BOOKKEEPING_TYPES: ReadonlySet<string> = new Set([
  "file-history-snapshot",
  "queue-operation",
  "progress",
  "attachment",
  "agent-name",
  "tag",
]);
