import { z } from "zod";

/*
 * Schemas for every line of a session file. Objects are loose: fields Arbor does not know
 * (written by a newer pi, oh-my-pi or a plugin) survive a read-rewrite round trip.
 */

/** The first line of a session file. `version` is absent in v1 files. */
export const sessionHeaderSchema = z.looseObject({
  type: z.literal("session"),
  version: z.number().int().positive().optional(),
  id: z.string().min(1),
  timestamp: z.string(),
  cwd: z.string().optional(),
  parentSession: z.string().optional(),
});
/** A session header, as {@link sessionHeaderSchema} accepts it. */
export type SessionHeader = z.infer<typeof sessionHeaderSchema>;

/** The fields every v2+ entry carries: its id, its parent's id (null for a root) and when. */
export const entryBaseSchema = z.looseObject({
  type: z.string().min(1),
  id: z.string().min(1),
  parentId: z.string().nullable(),
  timestamp: z.string(),
});
/** What {@link entryBaseSchema} accepts (the type derived from the schema). */
export type EntryBase = z.infer<typeof entryBaseSchema>;

/** A block of message content: text, thinking, image, tool call, or anything a provider adds. */
export const contentBlockSchema = z.looseObject({ type: z.string() });
/** What {@link contentBlockSchema} accepts (the type derived from the schema). */
export type ContentBlock = z.infer<typeof contentBlockSchema>;

/**
 * An agent message as stored: `user`, `assistant`, `toolResult`, `bashExecution`, `custom`
 * or a role a plugin defines. Only the role is required; the turn runner owns the rest.
 */
export const agentMessageSchema = z.looseObject({
  role: z.string().min(1),
  content: z.union([z.string(), z.array(contentBlockSchema)]).optional(),
  timestamp: z.number().optional(),
});
/** What {@link agentMessageSchema} accepts (the type derived from the schema). */
export type AgentMessage = z.infer<typeof agentMessageSchema>;

/** A message of the conversation: user, assistant, tool result, or a role a plugin defines. */
export const messageEntrySchema = entryBaseSchema.extend({
  type: z.literal("message"),
  message: agentMessageSchema,
});
/** What {@link messageEntrySchema} accepts (the type derived from the schema). */
export type MessageEntry = z.infer<typeof messageEntrySchema>;

/** The thinking level changed; it holds for the turns after it on the path. */
export const thinkingLevelChangeEntrySchema = entryBaseSchema.extend({
  type: z.literal("thinking_level_change"),
  thinkingLevel: z.string(),
});
/** What {@link thinkingLevelChangeEntrySchema} accepts (the type derived from the schema). */
export type ThinkingLevelChangeEntry = z.infer<typeof thinkingLevelChangeEntrySchema>;

/** The model changed; it holds for the turns after it on the path. */
export const modelChangeEntrySchema = entryBaseSchema.extend({
  type: z.literal("model_change"),
  provider: z.string(),
  modelId: z.string(),
});
/** What {@link modelChangeEntrySchema} accepts (the type derived from the schema). */
export type ModelChangeEntry = z.infer<typeof modelChangeEntrySchema>;

/** A compaction: `summary` stands for everything on the path before `firstKeptEntryId`. */
export const compactionEntrySchema = entryBaseSchema.extend({
  type: z.literal("compaction"),
  summary: z.string(),
  firstKeptEntryId: z.string().optional(),
  tokensBefore: z.number(),
  details: z.unknown().optional(),
  fromHook: z.boolean().optional(),
});
/** What {@link compactionEntrySchema} accepts (the type derived from the schema). */
export type CompactionEntry = z.infer<typeof compactionEntrySchema>;

/** A summary of the branch left at `fromId`, written when the leaf moved elsewhere. */
export const branchSummaryEntrySchema = entryBaseSchema.extend({
  type: z.literal("branch_summary"),
  fromId: z.string(),
  summary: z.string(),
  details: z.unknown().optional(),
  fromHook: z.boolean().optional(),
});
/** What {@link branchSummaryEntrySchema} accepts (the type derived from the schema). */
export type BranchSummaryEntry = z.infer<typeof branchSummaryEntrySchema>;

/** Extension state: stored in the tree, never sent to the model. */
export const customEntrySchema = entryBaseSchema.extend({
  type: z.literal("custom"),
  customType: z.string(),
  data: z.unknown().optional(),
});
/** What {@link customEntrySchema} accepts (the type derived from the schema). */
export type CustomEntry = z.infer<typeof customEntrySchema>;

/** An extension message that takes part in the model's context. */
export const customMessageEntrySchema = entryBaseSchema.extend({
  type: z.literal("custom_message"),
  customType: z.string(),
  content: z.union([z.string(), z.array(contentBlockSchema)]),
  display: z.boolean(),
  details: z.unknown().optional(),
});
/** What {@link customMessageEntrySchema} accepts (the type derived from the schema). */
export type CustomMessageEntry = z.infer<typeof customMessageEntrySchema>;

/** Sets (or, with an absent or empty `label`, clears) the label of `targetId`. */
export const labelEntrySchema = entryBaseSchema.extend({
  type: z.literal("label"),
  targetId: z.string(),
  label: z.string().optional(),
});
/** What {@link labelEntrySchema} accepts (the type derived from the schema). */
export type LabelEntry = z.infer<typeof labelEntrySchema>;

/** Sets the session's display name (its title); an empty name clears it. */
export const sessionInfoEntrySchema = entryBaseSchema.extend({
  type: z.literal("session_info"),
  name: z.string().optional(),
});
/** What {@link sessionInfoEntrySchema} accepts (the type derived from the schema). */
export type SessionInfoEntry = z.infer<typeof sessionInfoEntrySchema>;

/**
 * One rule injection, as `@arbor/ttsr` records it: enough to restore its repeat policy and
 * interrupt budgets exactly after a reload.
 */
export const injectedRuleSchema = z.looseObject({
  /** The rule's name. */
  rule: z.string().min(1),
  /** The turn the rule fired in (0 for the first turn). */
  turn: z.number().int().nonnegative(),
  /** Session-wide sequence number of the interrupt; rules injected together share it. */
  interrupt: z.number().int().nonnegative(),
});
/** What {@link injectedRuleSchema} accepts (the type derived from the schema). */
export type InjectedRule = z.infer<typeof injectedRuleSchema>;

/** Arbor: stream rules were injected after an interrupt. */
export const ttsrInjectionEntrySchema = entryBaseSchema.extend({
  type: z.literal("ttsr_injection"),
  injectedRules: z.array(injectedRuleSchema).min(1),
});
/** What {@link ttsrInjectionEntrySchema} accepts (the type derived from the schema). */
export type TtsrInjectionEntry = z.infer<typeof ttsrInjectionEntrySchema>;

/**
 * Arbor: the leaf moved without an append (navigation, reset). Its `parentId` is the new
 * leaf, so pi, which takes the last entry as the leaf, lands on the same path; Arbor keeps
 * it out of the tree and reads it as a pointer.
 */
export const leafEntrySchema = entryBaseSchema.extend({
  type: z.literal("leaf"),
  targetId: z.string().nullable(),
});
/** What {@link leafEntrySchema} accepts (the type derived from the schema). */
export type LeafEntry = z.infer<typeof leafEntrySchema>;

/** Every entry type this package knows, by `type`. */
export const knownEntrySchemas = {
  message: messageEntrySchema,
  thinking_level_change: thinkingLevelChangeEntrySchema,
  model_change: modelChangeEntrySchema,
  compaction: compactionEntrySchema,
  branch_summary: branchSummaryEntrySchema,
  custom: customEntrySchema,
  custom_message: customMessageEntrySchema,
  label: labelEntrySchema,
  session_info: sessionInfoEntrySchema,
  ttsr_injection: ttsrInjectionEntrySchema,
  leaf: leafEntrySchema,
} as const;

/** A known entry, discriminated on `type`. */
export type KnownEntry = {
  [K in keyof typeof knownEntrySchemas]: z.infer<(typeof knownEntrySchemas)[K]>;
}[keyof typeof knownEntrySchemas];

/** Any entry: a known one, or one of a type this package does not know (kept as it is). */
export type SessionEntry = KnownEntry | EntryBase;

/** Tells whether an entry is of the given known type, narrowing it. */
export function isEntryOfType<K extends keyof typeof knownEntrySchemas>(
  entry: SessionEntry,
  type: K,
): entry is z.infer<(typeof knownEntrySchemas)[K]> {
  return entry.type === type;
}
