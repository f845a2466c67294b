export { AgentHost } from "./agent-host.js";
export type {
  HostCheckpointRecord,
  HostCheckpoints,
  HostCodeRewind,
  HostFileChange,
  HostRewind,
  RewindOptions,
  RewindTarget,
} from "./host-checkpoints.js";
export type {
  AgentHostOptions,
  HostAgentOptions,
  SessionChoice,
  StoreChoice,
} from "./host-options.js";
export type { AgentHostState, HostActivity } from "./host-state.js";
export { type OrchestrationRun, type RunAgentOptions, runAgent } from "./run-agent.js";
export { type SessionUsage, sessionUsage } from "./session-usage.js";
