import { z } from "zod";

/*
 * The lines of an OpenAI Codex CLI rollout file
 * (`~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`), as far as the importer reads
 * them. Loose objects: newer versions add fields and line types.
 */

/** One line: `{ timestamp, type, payload }`. */
export const codexLineSchema = z.looseObject({
  timestamp: z.string().optional(),
  type: z.string(),
  payload: z.unknown().optional(),
});
/** What {@link codexLineSchema} accepts. */
export type CodexLine = z.infer<typeof codexLineSchema>;

/** The first line's payload: the session's id, working directory and the fork's source. */
export const codexSessionMetaSchema = z.looseObject({
  id: z.string().min(1),
  timestamp: z.string().optional(),
  cwd: z.string().optional(),
  cli_version: z.string().optional(),
  forked_from_id: z.string().nullable().optional(),
});
/** What {@link codexSessionMetaSchema} accepts. */
export type CodexSessionMeta = z.infer<typeof codexSessionMetaSchema>;

/** The settings of a turn: model and reasoning effort among them. */
export const codexTurnContextSchema = z.looseObject({
  model: z.string().optional(),
  effort: z.string().nullable().optional(),
});

/** A model-facing item (`response_item` payload): the content source of an import. */
export const codexResponseItemSchema = z.looseObject({
  type: z.string(),
  id: z.string().nullable().optional(),
  role: z.string().optional(),
  content: z.unknown().optional(),
  call_id: z.string().optional(),
  name: z.string().optional(),
  arguments: z.string().optional(),
  input: z.unknown().optional(),
  output: z.unknown().optional(),
  summary: z.unknown().optional(),
  encrypted_content: z.string().nullable().optional(),
});
/** What {@link codexResponseItemSchema} accepts. */
export type CodexResponseItem = z.infer<typeof codexResponseItemSchema>;

/** A compaction: the summary and, in newer versions, the history that replaces the old. */
export const codexCompactedSchema = z.looseObject({
  message: z.string().optional(),
  replacement_history: z.array(z.unknown()).nullable().optional(),
});

/** `event_msg` payload types that repeat what a `response_item` already holds. */
export const CODEX_DUPLICATE_EVENTS: ReadonlySet<string> = new Set([
  "user_message",
  "agent_message",
  "agent_reasoning",
  "agent_reasoning_raw_content",
  "agent_reasoning_section_break",
]);

/** `response_item` payload types that belong to the assistant's turn. */
export const CODEX_ASSISTANT_ITEMS: ReadonlySet<string> = new Set([
  "reasoning",
  "function_call",
  "custom_tool_call",
  "local_shell_call",
  "web_search_call",
]);
