export { ClientAssetMissingError } from "./client-asset.js";
export {
  type CustomMessageToRender,
  MAX_RENDERED_CHARS,
  type RenderCustomMessage,
  type RenderedCustomMessage,
  renderCustomMessages,
} from "./custom-message-renderer.js";
export { embedJson } from "./embed-json.js";
export { type ExportHtmlOptions, exportFileToHtml, exportSessionToHtml } from "./export-html.js";
export {
  ANCESTRY_CUSTOM_TYPE,
  type AncestryCard,
  CHILD_SESSION_CUSTOM_TYPE,
  type ChildCard,
  ChildOptionsError,
  childExportFileName,
  DEFAULT_CHILD_DEPTH,
  DEFAULT_CHILD_ENTRIES,
  type EmbeddedSession,
  type ExportTreeOptions,
  embedChildSessions,
  exportSessionTreeToHtml,
  type LoadChildSession,
  type OrchestrationView,
  preloadChildSessions,
  SYSTEM_PROMPT_CUSTOM_TYPE,
  type WithChildrenOptions,
} from "./orchestration/index.js";
export {
  buildPageData,
  type EntryMark,
  type PageData,
  type UsageTotals,
} from "./page-data.js";
export { readSessionSnapshot, snapshotOfSession } from "./read-session-file.js";
export { MAX_FILE_NAME_BYTES, safeFileName } from "./safe-file-name.js";
export type {
  SessionSnapshot,
  SessionSnapshotEntry,
  SessionSnapshotHeader,
} from "./session-snapshot.js";
