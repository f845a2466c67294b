export {
  CONTEXT_FILE_NAMES,
  type ContextFile,
  contextPrompt,
  contextSummary,
  findRepositoryRoot,
  foldersDown,
  loadProjectContext,
  MAX_CONTEXT_FILE_BYTES,
  type ProjectContext,
} from "./project-context.js";
export {
  builtInSystemPrompt,
  type GitFacts,
  gatherPromptFacts,
  gitFacts,
  type PromptFacts,
} from "./system-prompt.js";
