export { type BashToolOptions, bashTool, commandEnding } from "./bash-tool.js";
export { commandEnvironment } from "./command-environment.js";
export { editTool, writeTool } from "./file-tools.js";
export { imageMimeType, linesOf, readTool } from "./read-tool.js";
export { findTool, grepTool, lsTool } from "./search-tools.js";
