export {
  type BubblewrapProbe,
  type CommandSandbox,
  probeBubblewrap,
  sandboxArguments,
} from "./bubblewrap-sandbox.js";
export { editWorkspaceFile, replacementDiff, type WorkspaceEdit } from "./edit-workspace-file.js";
export { findWorkspaceFiles, MAX_FIND_RESULTS } from "./find-workspace-files.js";
export { globMatcher } from "./glob-pattern.js";
export {
  type ListWorkspaceDirOptions,
  listWorkspaceDir,
  MAX_LIST_DEPTH,
  MAX_LIST_ENTRIES,
} from "./list-workspace-dir.js";
export {
  MAX_READ_BYTES,
  type ReadWorkspaceFileOptions,
  readWorkspaceBytes,
  readWorkspaceFile,
  type WorkspaceFileBytes,
  wholeCharacters,
} from "./read-workspace-file.js";
export { ripgrepAvailable } from "./ripgrep.js";
export {
  DEFAULT_COMMAND_TIMEOUT_S,
  MAX_COMMAND_OUTPUT_BYTES,
  MAX_COMMAND_TIMEOUT_S,
  type RunWorkspaceCommandOptions,
  runWorkspaceCommand,
  type WorkspaceCommandResult,
} from "./run-workspace-command.js";
export {
  MAX_GREP_MATCHES,
  type SearchEngine,
  searchWorkspace,
  type WorkspaceSearch,
} from "./search-workspace.js";
export { WorkspaceToolError, type WorkspaceToolErrorCode } from "./workspace-tool-error.js";
export {
  MAX_WRITE_BYTES,
  type WriteWorkspaceFileOptions,
  writeWorkspaceFile,
} from "./write-workspace-file.js";
