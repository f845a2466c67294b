import type { z } from "zod";
import {
  AGENT_FILE_CUSTOM_TYPE,
  APPROVAL_CUSTOM_TYPE,
  agentFileEntrySchema,
  approvalRecordSchema,
  CHECKPOINT_CUSTOM_TYPE,
  checkpointEntryDataSchema,
} from "./app-entries.js";
import {
  CONTEXT_GUARD_CUSTOM_TYPE,
  contextGuardRecordSchema,
  FAILOVER_CUSTOM_TYPE,
  failoverRecordSchema,
} from "./attempt-entries.js";
import {
  ANCESTRY_CUSTOM_TYPE,
  ancestryEntrySchema,
  CHILD_SESSION_CUSTOM_TYPE,
  childSessionEntrySchema,
  FINAL_ANSWER_CUSTOM_TYPE,
  finalAnswerDetailsSchema,
} from "./orchestration-entries.js";
import {
  ANSWER_FEEDBACK_CUSTOM_TYPE,
  answerFeedbackDetailsSchema,
  CONTEXT_SWITCH_CUSTOM_TYPE,
  contextSwitchDetailsSchema,
  FINAL_TURN_CUSTOM_TYPE,
  finalTurnDetailsSchema,
  SYSTEM_PROMPT_CUSTOM_TYPE,
  systemPromptRecordSchema,
  TTSR_INTERRUPT_CUSTOM_TYPE,
  ttsrInterruptDetailsSchema,
} from "./prompt-entries.js";

/**
 * Every custom type Arbor writes, with the entry type it is written as and the schema of
 * its payload: a `custom` entry's `data`, a `custom_message` entry's `details`.
 */
export const arborEntrySchemas = {
  [CHILD_SESSION_CUSTOM_TYPE]: { entryType: "custom", schema: childSessionEntrySchema },
  [ANCESTRY_CUSTOM_TYPE]: { entryType: "custom", schema: ancestryEntrySchema },
  [FINAL_ANSWER_CUSTOM_TYPE]: { entryType: "custom_message", schema: finalAnswerDetailsSchema },
  [SYSTEM_PROMPT_CUSTOM_TYPE]: { entryType: "custom", schema: systemPromptRecordSchema },
  [CONTEXT_SWITCH_CUSTOM_TYPE]: {
    entryType: "custom_message",
    schema: contextSwitchDetailsSchema,
  },
  [FINAL_TURN_CUSTOM_TYPE]: { entryType: "custom_message", schema: finalTurnDetailsSchema },
  [ANSWER_FEEDBACK_CUSTOM_TYPE]: {
    entryType: "custom_message",
    schema: answerFeedbackDetailsSchema,
  },
  [TTSR_INTERRUPT_CUSTOM_TYPE]: {
    entryType: "custom_message",
    schema: ttsrInterruptDetailsSchema,
  },
  [FAILOVER_CUSTOM_TYPE]: { entryType: "custom", schema: failoverRecordSchema },
  [CONTEXT_GUARD_CUSTOM_TYPE]: { entryType: "custom", schema: contextGuardRecordSchema },
  [APPROVAL_CUSTOM_TYPE]: { entryType: "custom", schema: approvalRecordSchema },
  [AGENT_FILE_CUSTOM_TYPE]: { entryType: "custom", schema: agentFileEntrySchema },
  [CHECKPOINT_CUSTOM_TYPE]: { entryType: "custom", schema: checkpointEntryDataSchema },
} as const;

/** A custom type Arbor writes (a key of {@link arborEntrySchemas}). */
export type ArborEntryType = keyof typeof arborEntrySchemas;

/** The payload of an entry of Arbor's custom type `T`, as its schema reads it. */
export type ArborEntryData<T extends ArborEntryType> = z.infer<
  (typeof arborEntrySchemas)[T]["schema"]
>;

/** An entry as any reader may hold it: a parsed line, a snapshot, a plain object. */
type EntryFields = { type?: unknown; customType?: unknown; data?: unknown; details?: unknown };

/**
 * Whether `entry` is an entry of Arbor's custom type `type` (the right entry type and
 * `customType`), whatever its payload holds.
 * @example
 * session.getEntries().some((entry) => isArborEntry(entry, ANCESTRY_CUSTOM_TYPE));
 */
export function isArborEntry(entry: unknown, type: ArborEntryType): boolean {
  if (typeof entry !== "object" || entry === null) return false;
  const fields = entry as EntryFields;
  return fields.type === arborEntrySchemas[type].entryType && fields.customType === type;
}

/**
 * The payload of an entry of Arbor's custom type `type`, read through its schema (unknown
 * fields kept), or undefined when the entry is of another type or its payload is
 * malformed. Never throws, whatever the entry holds.
 * @example
 * const child = readArborEntry(entry, CHILD_SESSION_CUSTOM_TYPE);
 * const running = child?.outcome === "running";
 */
export function readArborEntry<T extends ArborEntryType>(
  entry: unknown,
  type: T,
): ArborEntryData<T> | undefined {
  try {
    if (!isArborEntry(entry, type)) return undefined;
    const { entryType, schema } = arborEntrySchemas[type];
    const fields = entry as EntryFields;
    const parsed = schema.safeParse(entryType === "custom" ? fields.data : fields.details);
    return parsed.success ? (parsed.data as ArborEntryData<T>) : undefined;
  } catch {
    return undefined;
  }
}
