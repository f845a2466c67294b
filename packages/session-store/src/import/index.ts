export { readClaudeCodeFile } from "./claude-code-reader.js";
export { readCodexFile } from "./codex-reader.js";
export { detectSource } from "./detect-source.js";
export { type ImportProblem, SessionImportError } from "./import-errors.js";
export {
  defaultImportLocation,
  type ImportedSessionResult,
  type ImportProgress,
  type ImportSessionsOptions,
  type ImportSummary,
  importSessions,
  type SkippedSource,
} from "./import-sessions.js";
export {
  type EntryProvenance,
  entryProvenanceSchema,
  type ImportedLog,
  type ImportLineIssue,
  type ImportProvenance,
  type ImportReport,
  type ImportSource,
  importProvenanceSchema,
  importSourceSchema,
  RAW_LINE_CUSTOM_TYPE,
} from "./imported-log.js";
export { exportJsonl, type JsonlSource } from "./jsonl-export.js";
export { type ReadSourceLinesOptions, readSourceLines, type SourceLine } from "./jsonl-lines.js";
export {
  exportMarkdown,
  type MarkdownExportOptions,
  type MarkdownSource,
} from "./markdown-export.js";
export {
  DEFAULT_MAX_DATABASE_BYTES,
  findOpencodeDatabase,
  opencodeDatabaseSessions,
  type ReadOpencodeDatabaseOptions,
  readOpencodeDatabase,
} from "./opencode-database.js";
export { findOpencodeStorage, readOpencodeStorage } from "./opencode-reader.js";
export { importedSessionId } from "./session-ids.js";
export type { SqlJsLoader } from "./sqljs-loader.js";
export {
  importedLogText,
  importIntoStore,
  type StoreImportOptions,
  type StoreImportResult,
  type StoreImportStatus,
} from "./store-import.js";
