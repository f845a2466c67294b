export {
  AGENT_SCENARIO_VERSION,
  type AgentScenario,
  type AgentScenarioInput,
  type AgentTarget,
  agentConfigSchema,
  agentExpectSchema,
  agentScenarioSchema,
  agentTargetSchema,
  type ExpectedResult,
  type ExpectedTree,
  expectedTreeSchema,
  type ScenarioMcpServer,
  type ScenarioTool,
  scenarioToolSchema,
} from "./agent-scenario-schema.js";
export { type AgentObservation, checkAgentExpectations } from "./check-agent-expectations.js";
export { runAgentScenario } from "./run-agent-scenario.js";
export {
  checkExtensionExpectations,
  type ExpectedExtensions,
  ExtensionLog,
  expectedExtensionsSchema,
  extensionEventLabel,
  extensionFixturePath,
  loadScenarioExtensions,
  RECORDER_EXTENSION_NAME,
  type RecordedExtensionEvent,
  type ScenarioExtensions,
  scenarioExtensionsSchema,
} from "./scenario-extensions.js";
export { connectScenarioMcpServers, scriptedMcpServerPath } from "./scenario-mcp.js";
export { buildScenarioModels, type ScenarioModels } from "./scenario-targets.js";
export { buildScenarioTools, ToolCallLog } from "./scenario-tools.js";
export { entryLabel, summarizeTree, type TreeSummary } from "./tree-summary.js";
