export type {
  AgentEvent,
  AgentFailureReason,
  AgentResult,
  AgentRun,
  FailoverAction,
  TargetRef,
} from "./agent-events.js";
export {
  AgentSession,
  type AgentSessionOptions,
  FAILOVER_CUSTOM_TYPE,
  TTSR_INTERRUPT_CUSTOM_TYPE,
} from "./agent-session.js";
export {
  type AgentTool,
  defineTool,
  type ToolExecutionContext,
  type ToolOutput,
} from "./agent-tool.js";
export { type ContextBudget, contextLimit, estimateTokens } from "./context-limit.js";
export { toModelMessages } from "./context-messages.js";
export type { ModelTarget } from "./target-pool.js";
