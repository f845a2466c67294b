export * from "./checkpoints/index.js";
export * from "./operations/index.js";
export * from "./tools/index.js";
export {
  WORKSPACE_TOOL_TIMEOUT_MS,
  type WorkspaceToolsOptions,
  workspaceTools,
} from "./workspace-tools.js";
