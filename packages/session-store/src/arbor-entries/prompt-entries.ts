import { z } from "zod";
import { listField, nameField, textField, wordField } from "./stored-fields.js";

/**
 * The `custom` entry recording the system prompt runs used from that point of the path on
 * (stored once per change; never sent to the model; pi keeps it as an extension's data).
 */
export const SYSTEM_PROMPT_CUSTOM_TYPE = "arbor.system-prompt";

/**
 * The `custom_message` recording a change of working directory (CodeTether's context
 * switch): shown to the user and sent to the model.
 */
export const CONTEXT_SWITCH_CUSTOM_TYPE = "arbor.context-switch";

/** The hidden `custom_message` announcing the final turn to the model. */
export const FINAL_TURN_CUSTOM_TYPE = "arbor.final-turn";

/** The hidden `custom_message` telling the model why its answer was not accepted. */
export const ANSWER_FEEDBACK_CUSTOM_TYPE = "arbor.answer-feedback";

/**
 * The hidden `custom_message` carrying a stream rule's reminder. Its name predates the
 * `arbor.` prefix and is kept, so sessions written before keep their reminders.
 */
export const TTSR_INTERRUPT_CUSTOM_TYPE = "ttsr-interrupt";

/** The data of a {@link SYSTEM_PROMPT_CUSTOM_TYPE} entry: the prompt's text (`""`: none). */
export const systemPromptRecordSchema = z.looseObject({ text: textField });
/** The data of a {@link SYSTEM_PROMPT_CUSTOM_TYPE} entry. */
export type SystemPromptRecord = z.infer<typeof systemPromptRecordSchema>;

/** The details of a {@link CONTEXT_SWITCH_CUSTOM_TYPE} message. */
export const contextSwitchDetailsSchema = z.looseObject({
  /** The working directory from this point of the path on. */
  directory: nameField,
  /** The one before, when known. */
  previousDirectory: nameField.optional(),
});
/** The details of a {@link CONTEXT_SWITCH_CUSTOM_TYPE} message. */
export type ContextSwitchDetails = z.infer<typeof contextSwitchDetailsSchema>;

/**
 * The details of a {@link FINAL_TURN_CUSTOM_TYPE} message: why the runner forced a final
 * turn (`stop`, `context_limit` or `max_turns`).
 */
export const finalTurnDetailsSchema = z.looseObject({ reason: wordField });
/** The details of a {@link FINAL_TURN_CUSTOM_TYPE} message. */
export type FinalTurnDetails = z.infer<typeof finalTurnDetailsSchema>;

/**
 * The details of an {@link ANSWER_FEEDBACK_CUSTOM_TYPE} message: the problem kinds of the
 * rejected answer, most important first, one reason text per problem (absent in feedback
 * stored before reasons were recorded), and the id of the rejected answer's entry.
 */
export const answerFeedbackDetailsSchema = z.looseObject({
  problems: listField(wordField),
  reasons: listField(textField).optional(),
  rejectedEntryId: nameField,
});
/** The details of an {@link ANSWER_FEEDBACK_CUSTOM_TYPE} message. */
export type AnswerFeedbackDetails = z.infer<typeof answerFeedbackDetailsSchema>;

/**
 * The details of a {@link TTSR_INTERRUPT_CUSTOM_TYPE} message: the names of the rules it
 * reminds of, and either the aborted partial answer it interrupted (`partialEntryId`) or
 * `interrupted: false` for rules that matched without interrupting.
 */
export const ttsrInterruptDetailsSchema = z.looseObject({
  rules: listField(nameField),
  partialEntryId: nameField.optional(),
  interrupted: z.boolean().optional(),
});
/** The details of a {@link TTSR_INTERRUPT_CUSTOM_TYPE} message. */
export type TtsrInterruptDetails = z.infer<typeof ttsrInterruptDetailsSchema>;
