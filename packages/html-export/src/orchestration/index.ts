export { ChildOptionsError } from "./child-options-error.js";
export {
  DEFAULT_CHILD_DEPTH,
  DEFAULT_CHILD_ENTRIES,
  embedChildSessions,
  type WithChildrenOptions,
} from "./embed-children.js";
export { childExportFileName } from "./export-file-name.js";
export {
  type ExportTreeOptions,
  exportSessionTreeToHtml,
  type LoadChildSession,
  preloadChildSessions,
} from "./load-children.js";
export {
  ANCESTRY_CUSTOM_TYPE,
  CHILD_SESSION_CUSTOM_TYPE,
  SYSTEM_PROMPT_CUSTOM_TYPE,
} from "./orchestration-records.js";
export type {
  AncestryCard,
  ChildCard,
  EmbeddedSession,
  OrchestrationView,
} from "./orchestration-view.js";
