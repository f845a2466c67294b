export {
  AGENT_FILE_CUSTOM_TYPE,
  type AgentFileEntry,
  agentFileEntrySchema,
  rememberAgentFile,
  rememberedAgentFile,
} from "./agent-file-entry.js";
export { type ChildRunSummary, childRunText } from "./child-run-text.js";
export { isChildSession, withoutChildSessions } from "./child-session-filter.js";
export { type InteractiveAgentFile, interactiveAgentFile } from "./interactive-agent-file.js";
export { loadCliAgentTree } from "./load-cli-agent-tree.js";
