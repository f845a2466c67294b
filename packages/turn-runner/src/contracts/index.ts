export {
  type AccountingRecord,
  type AccountingSink,
  accountingRecordSchema,
  type PricedUsage,
  pricedUsageSchema,
} from "./accounting-record.js";
export {
  AGENT_ERROR_CODES,
  AgentBusyError,
  AgentClosedError,
  type AgentError,
  type AgentErrorCode,
  EntryNotFoundError,
  InvalidAgentOptionsError,
  InvalidPromptError,
  InvalidSubscriptionError,
  InvalidThinkingLevelError,
  isAgentError,
} from "./agent-errors.js";
export {
  type AgentEvent,
  type AgentEventEnvelope,
  type AgentEventPayload,
  type AgentEventType,
  agentEventSchema,
  type TriggeredRule,
  triggeredRuleSchema,
} from "./agent-event.js";
export {
  type AgentFailure,
  type AgentResult,
  type AgentSuccess,
  agentFailureSchema,
  agentResultSchema,
  agentSuccessSchema,
  type SessionRef,
  sessionRefSchema,
} from "./agent-result.js";
export type { AgentRun, SubscribeOptions } from "./agent-run.js";
export {
  deliveredReportSchema,
  type FinalReport,
  failedReportSchema,
  finalReportSchema,
} from "./final-report.js";
export {
  type AncestryOptions,
  agentPathSchema,
  ancestryOptionsSchema,
  DEFAULT_AGENT_PATH,
  type RunAncestry,
  runAncestry,
  runAncestrySchema,
} from "./run-ancestry.js";
export {
  type AgentFailureReason,
  type AnswerProblemKind,
  agentFailureReasonSchema,
  answerProblemKindSchema,
  type CompactionReason,
  compactionReasonSchema,
  type FailoverAction,
  type FinalTurnReason,
  failoverActionSchema,
  finalTurnReasonSchema,
  type TargetRef,
  targetRefSchema,
} from "./run-vocabulary.js";
export { type TaskStatus, taskStatusSchema } from "./task-status.js";
