export {
  ArborError,
  arborErrorGuard,
  stampArborError,
} from "./arbor-error.js";
export {
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
} from "./session-store-errors.js";
