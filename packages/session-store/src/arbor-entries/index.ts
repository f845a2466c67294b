export {
  AGENT_FILE_CUSTOM_TYPE,
  type AgentFileEntry,
  type AllowRule,
  APPROVAL_CUSTOM_TYPE,
  type ApprovalRecord,
  agentFileEntrySchema,
  allowRuleSchema,
  approvalRecordSchema,
} from "./app-entries.js";
export {
  type ArborEntryData,
  type ArborEntryType,
  arborEntrySchemas,
  isArborEntry,
  readArborEntry,
} from "./arbor-entry-registry.js";
export {
  CONTEXT_GUARD_CUSTOM_TYPE,
  type ContextGuardRecord,
  contextGuardRecordSchema,
  FAILOVER_CUSTOM_TYPE,
  type FailoverRecord,
  failoverRecordSchema,
} from "./attempt-entries.js";
export {
  ANCESTRY_CUSTOM_TYPE,
  type AncestryEntry,
  ancestryEntrySchema,
  CHILD_SESSION_CUSTOM_TYPE,
  type ChildSessionEntry,
  childSessionEntrySchema,
  FINAL_ANSWER_CUSTOM_TYPE,
  type FinalAnswerDetails,
  finalAnswerDetailsSchema,
} from "./orchestration-entries.js";
export {
  ANSWER_FEEDBACK_CUSTOM_TYPE,
  type AnswerFeedbackDetails,
  answerFeedbackDetailsSchema,
  CONTEXT_SWITCH_CUSTOM_TYPE,
  type ContextSwitchDetails,
  contextSwitchDetailsSchema,
  FINAL_TURN_CUSTOM_TYPE,
  type FinalTurnDetails,
  finalTurnDetailsSchema,
  SYSTEM_PROMPT_CUSTOM_TYPE,
  type SystemPromptRecord,
  systemPromptRecordSchema,
  TTSR_INTERRUPT_CUSTOM_TYPE,
  type TtsrInterruptDetails,
  ttsrInterruptDetailsSchema,
} from "./prompt-entries.js";
