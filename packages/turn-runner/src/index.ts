export type { TokenCounter } from "@arbor/session-store";
export { AgentSession } from "./agent-session.js";
export type { AgentResource, AgentSessionOptions } from "./agent-session-options.js";
export {
  type AgentTool,
  defineTool,
  type ToolExecutionContext,
  type ToolOutput,
} from "./agent-tool.js";
export { ANSWER_FEEDBACK_CUSTOM_TYPE, type AnswerProblem } from "./answer-review.js";
export * from "./compaction/index.js";
export { CONTEXT_GUARD_CUSTOM_TYPE, type ContextGuardOptions } from "./context-guard.js";
export { type ContextBudget, contextLimit, estimateTokens } from "./context-limit.js";
export { toModelMessages } from "./context-messages.js";
export * from "./contracts/index.js";
export * from "./extensions/index.js";
export {
  classifyModelError,
  FAILOVER_CUSTOM_TYPE,
  type ModelErrorHandling,
} from "./failover-policy.js";
export { FINAL_META_TOOL_NAME } from "./final-meta.js";
export {
  FINAL_REPORT_TOOL_NAME,
  type JsonSchemaObject,
  type OutputSchema,
} from "./final-report.js";
export { FINAL_TURN_CUSTOM_TYPE } from "./final-turn.js";
export * from "./mcp/index.js";
export type { TelemetryOptions, TracerProviderLike } from "./run-trace.js";
export {
  CONTEXT_SWITCH_CUSTOM_TYPE,
  type ContextSwitchDetails,
  contextSwitchDetailsSchema,
  recordedSystemPrompt,
  recordedWorkingDirectory,
  recordSystemPrompt,
  recordWorkingDirectory,
  SYSTEM_PROMPT_CUSTOM_TYPE,
  type SystemPromptRecord,
  systemPromptRecordSchema,
} from "./session-records.js";
export type { ModelTarget } from "./target-pool.js";
export { STOPPED_TOOL_TEXT } from "./tool-execution.js";
export * from "./tool-output/index.js";
export { openTraceSpan, type TraceSpanScope } from "./trace-span.js";
export type {
  BranchEntriesSummarizer,
  BranchSummarizer,
  BranchSummaryInput,
  NavigateTreeOptions,
  NavigateTreeResult,
  TreeNavigation,
} from "./tree-navigation.js";
export { TTSR_INTERRUPT_CUSTOM_TYPE } from "./ttsr-interrupt.js";
export type { UsageRecord } from "./usage-record.js";
