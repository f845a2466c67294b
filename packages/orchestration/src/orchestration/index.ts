export {
  type AgentNode,
  hasOrchestration,
  ROUTER_TOOL_NAME,
  SUB_AGENT_TOOL_PREFIX,
  subAgentToolName,
} from "./agent-tree.js";
export { AgentTree, type TreeRunStart } from "./agent-tree-run.js";
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
export type { HostRun } from "./host-run.js";
export {
  INTERRUPTED_CHILD_MESSAGE,
  type RecordInterruptedChildrenOptions,
  recordInterruptedChildren,
} from "./interrupted-children.js";
export {
  agentTreeOf,
  definitionOf,
  isAgentNode,
  isTree,
  type LoadAgentTreeOptions,
  loadAgentTree,
  resolveAgentTree,
  singleAgentDefinition,
} from "./load-agent-tree.js";
export type {
  ChildAgentSpec,
  OpenChildAgent,
  PlaceAgent,
} from "./orchestration-context.js";
export {
  type ChildEndEvent,
  type ChildStartEvent,
  childEndEventSchema,
  childStartEventSchema,
  type HandoffEvent,
  handoffEventSchema,
  type OrchestrationEndEvent,
  orchestrationEndEventSchema,
  orchestrationOwnEventSchema,
  type RunEvent,
  runEventSchema,
} from "./orchestration-events.js";
export {
  type ChildRun,
  childRunSchema,
  type OrchestrationResult,
  orchestrationResultSchema,
} from "./orchestration-result.js";
export { RunEventLog } from "./run-event-log.js";
export { composeBlocks, type NonceSource, type PromptBlock, randomNonce } from "./tagged-blocks.js";
export {
  type AgentTreeLimits,
  DEFAULT_CHILD_CONCURRENCY,
  DEFAULT_MAX_DEPTH,
  type TreeOptions,
} from "./tree-options.js";
