export {
  type AgentNode,
  hasOrchestration,
  ROUTER_TOOL_NAME,
  SUB_AGENT_TOOL_PREFIX,
  subAgentToolName,
} from "./agent-tree.js";
export {
  ANCESTRY_CUSTOM_TYPE,
  type Ancestry,
  type AncestryEntry,
  ancestryEntrySchema,
  ancestrySchema,
  CHILD_SESSION_CUSTOM_TYPE,
  type ChildOutcome,
  type ChildRole,
  type ChildSessionEntry,
  childOutcomeSchema,
  childRoleSchema,
  childSessionEntrySchema,
  FINAL_ANSWER_CUSTOM_TYPE,
} from "./child-records.js";
export {
  INTERRUPTED_CHILD_MESSAGE,
  type RecordInterruptedChildrenOptions,
  recordInterruptedChildren,
} from "./interrupted-children.js";
export { type LoadAgentTreeOptions, loadAgentTree, resolveAgentTree } from "./load-agent-tree.js";
export {
  type ChildEndEvent,
  type ChildStartEvent,
  childEndEventSchema,
  childStartEventSchema,
  type OrchestrationEndEvent,
  type OrchestrationEvent,
  orchestrationEndEventSchema,
  orchestrationEventSchema,
  orchestrationOwnEventSchema,
} from "./orchestration-events.js";
export {
  type ChildRun,
  childRunSchema,
  type OrchestrationResult,
  orchestrationResultSchema,
} from "./orchestration-result.js";
export { type OrchestrationRun, runAgent } from "./run-agent.js";
export {
  DEFAULT_CHILD_CONCURRENCY,
  DEFAULT_MAX_DEPTH,
  type RunAgentLimits,
  type RunAgentOptions,
} from "./run-agent-options.js";
export { composeBlocks, type NonceSource, type PromptBlock, randomNonce } from "./tagged-blocks.js";
