import { z } from "zod";
import type { SessionSnapshotEntry } from "../session-snapshot.js";

/** `customType` of the entry a parent session gets for each child it starts, and when it ends. */
export const CHILD_SESSION_CUSTOM_TYPE = "arbor.orchestration.child";
/** `customType` of a child session's first entry: who started it. */
export const ANCESTRY_CUSTOM_TYPE = "arbor.orchestration.ancestry";
/** `customType` of the entry holding the system prompt a run used. */
export const SYSTEM_PROMPT_CUSTOM_TYPE = "arbor.system-prompt";

const finite = z.number().finite();

/**
 * The part of a child-session record the page shows. Tolerant: unknown fields are fine
 * and unknown roles or outcomes are shown as written; an entry that does not match is
 * shown as ordinary extension data.
 */
export const childRecordSchema = z.looseObject({
  childSessionId: z.string().min(1),
  role: z.string(),
  agent: z.string(),
  agentPath: z.string(),
  outcome: z.string(),
  message: z.string().optional(),
  usage: z
    .looseObject({
      input: finite.optional(),
      output: finite.optional(),
      cacheRead: finite.optional(),
      cacheWrite: finite.optional(),
      totalTokens: finite.optional(),
    })
    .optional(),
  cost: finite.optional(),
});
/** A child-session record as the page reads it. */
export type ChildRecord = z.infer<typeof childRecordSchema>;

/** The part of an ancestry record (a child session's first entry) the page shows. */
export const ancestryRecordSchema = z.looseObject({
  parentId: z.string().min(1),
  originId: z.string().optional(),
  agentPath: z.string().optional(),
  agent: z.string().optional(),
  role: z.string().optional(),
});
/** An ancestry record as the page reads it. */
export type AncestryRecord = z.infer<typeof ancestryRecordSchema>;

/** The data of a system-prompt entry. */
export const systemPromptRecordSchema = z.looseObject({ text: z.string() });

function dataOf(entry: SessionSnapshotEntry, customType: string): unknown {
  return entry.type === "custom" && entry.customType === customType ? entry.data : undefined;
}

/** The child-session record an entry holds, or undefined (not one, or a bad shape). */
export function readChildRecord(entry: SessionSnapshotEntry): ChildRecord | undefined {
  const parsed = childRecordSchema.safeParse(dataOf(entry, CHILD_SESSION_CUSTOM_TYPE));
  return parsed.success ? parsed.data : undefined;
}

/** The ancestry record an entry holds, or undefined (not one, or a bad shape). */
export function readAncestryRecord(entry: SessionSnapshotEntry): AncestryRecord | undefined {
  const parsed = ancestryRecordSchema.safeParse(dataOf(entry, ANCESTRY_CUSTOM_TYPE));
  return parsed.success ? parsed.data : undefined;
}

/** The system prompt an entry holds, or undefined (not one, or a bad shape). */
export function readSystemPrompt(entry: SessionSnapshotEntry): string | undefined {
  const parsed = systemPromptRecordSchema.safeParse(dataOf(entry, SYSTEM_PROMPT_CUSTOM_TYPE));
  return parsed.success ? parsed.data.text : undefined;
}
