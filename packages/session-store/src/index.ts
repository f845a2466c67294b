export { activityTimeFromLineEnd, activityTimeOf } from "./activity-time.js";
export * from "./arbor-entries/index.js";
export * from "./compaction/index.js";
export {
  ArborError,
  arborErrorGuard,
  DuplicateEntryIdError,
  type EntryIssue,
  EntryNotFoundError,
  InvalidEntryError,
  type LockHolder,
  type SessionFileChange,
  SessionFileChangedError,
  SessionFileError,
  type SessionFileProblem,
  SessionIoError,
  type SessionIoProblem,
  SessionLockedError,
  SessionReadOnlyError,
  SessionStoreError,
  stampArborError,
} from "./errors/index.js";
export * from "./format/entries.js";
export { type JsonParseResult, safeParseJson } from "./format/json-line.js";
export { migrateToCurrent, migrateV1ToV2, migrateV2ToV3 } from "./format/migrations.js";
export {
  type LogProblem,
  type ParsedLog,
  parseSessionLog,
  type StoredContent,
  storedText,
  validateEntry,
} from "./format/session-log.js";
export { CURRENT_SESSION_VERSION } from "./format/version.js";
export { generateEntryId, generateSessionId, type IdSet } from "./ids.js";
export {
  type DeleteSessionOptions,
  deleteSession,
  type ListSessionsOptions,
  listSessions,
  SESSION_INDEX_FILE,
  type SessionInfo,
} from "./listing.js";
export {
  type CreateSessionOptions,
  createSession,
  defaultSessionDir,
  type OpenSessionFileOptions,
  openSessionFile,
} from "./open.js";
export { Session } from "./session.js";
export {
  type OpenStorageOptions,
  type SessionSeams,
  sessionFileName,
} from "./session-options.js";
export { isSpareCopyId, SPARE_COPY_SUFFIX, spareCopyId } from "./spare-copy.js";
export type { StaleLockPolicy } from "./storage/file-lock.js";
export {
  FileSessionStorage,
  type FileStorageOptions,
  type WriteFn,
} from "./storage/file-storage.js";
export { MemorySessionStorage } from "./storage/memory-storage.js";
export type {
  Durability,
  HeldSession,
  SessionStorage,
  StoredLog,
} from "./storage/session-storage.js";
export { type SharedFileLockOptions, withSharedFileLock } from "./storage/shared-file-lock.js";
export {
  type CreateStoredSessionOptions,
  checkTenant,
  decodeCursor,
  encodeCursor,
  FileSessionStore,
  type FileSessionStoreOptions,
  forkLines,
  type ImportedSession,
  InvalidStoreQueryError,
  importableLines,
  type ListCursor,
  listCursorSchema,
  MemorySessionStore,
  type OpenStoredSessionOptions,
  type ParsedSessionListQuery,
  parseListQuery,
  type SessionLines,
  type SessionListQuery,
  SessionNotFoundError,
  type SessionPage,
  type SessionStore,
  type StoredSessionInfo,
  sessionListQuerySchema,
  summarizeSession,
  tenantSchema,
} from "./store/index.js";
export {
  DEFAULT_TITLE_LENGTH,
  firstUserText,
  messageText,
  type TitleGenerator,
  titleFromText,
} from "./title.js";
export {
  buildContextFromPath,
  type CompactionSummaryMessage,
  type ModelRef,
  type SessionContext,
  toContextMessage,
} from "./tree/session-context.js";
export { SessionTree, type SessionTreeNode } from "./tree/session-tree.js";
