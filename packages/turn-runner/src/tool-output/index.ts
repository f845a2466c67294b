export { applyToolOutputCap, type ToolOutputOptions } from "./apply-tool-output-cap.js";
export {
  capToolOutput,
  DEFAULT_TOOL_OUTPUT_EXCERPT_CHARS,
  DEFAULT_TOOL_OUTPUT_MAX_CHARS,
  READ_TOOL_OUTPUT_TOOL_NAME,
  type ToolOutputCapOptions,
} from "./cap-tool-output.js";
export { readToolOutputTool } from "./read-tool-output-tool.js";
export {
  TOOL_OUTPUT_HANDLE_PATTERN,
  ToolOutputError,
  type ToolOutputPage,
  ToolOutputStore,
  type ToolOutputStoreOptions,
} from "./tool-output-store.js";
