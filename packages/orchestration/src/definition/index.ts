export {
  type AgentDefinition,
  type AgentDefinitionInput,
  type AgentLimits,
  agentDefinitionSchema,
  agentLimitsSchema,
  agentNameSchema,
  agentRouterSchema,
} from "./agent-definition.js";
export { MAX_YAML_ALIASES } from "./front-matter.js";
export {
  DEFAULT_MAX_AGENT_FILE_BYTES,
  type LoadAgentFileOptions,
  loadAgentFile,
} from "./load-agent-file.js";
export {
  type AgentFolder,
  DEFAULT_MAX_AGENT_FILES,
  type LoadAgentFolderOptions,
  loadAgentFolder,
} from "./load-agent-folder.js";
export {
  type ModelTargetSpec,
  modelTargetSpecSchema,
  parseModelTargetSpec,
} from "./model-target-spec.js";
export {
  type DefinitionSource,
  defineAgent,
  parseAgentMarkdown,
} from "./parse-agent-definition.js";
