export { AgentExtensions } from "./agent-extensions.js";
export type { ModelToolCall, ToolRunOutcome } from "./extension-tool-calls.js";
export type { NavigateTreeOptions, NavigateTreeResult } from "./tree-navigation.js";
