export { type BashToolOptions, bashTool, commandEnding } from "./bash-tool.js";
export { commandEnvironment } from "./command-environment.js";
export { editTool, writeTool } from "./file-tools.js";
export {
  DEFAULT_READ_LINES,
  imageMimeType,
  linesOf,
  MAX_IMAGE_BYTES,
  MAX_READ_SCAN_BYTES,
  readTool,
} from "./read-tool.js";
export { findTool, grepTool, lsTool } from "./search-tools.js";
export {
  APPROVAL_WAIT_MS,
  type ApproveToolCall,
  type ToolCallRequest,
  withApproval,
} from "./tool-approval.js";
