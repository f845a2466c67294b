export {
  DatabaseUnavailableError,
  DuplicateEntryError,
  isConnectionError,
  SessionLeaseLostError,
} from "./errors.js";
export { escapeText, losslessPool, mapStrings, restoreText } from "./lossless-text.js";
export {
  applyMigrations,
  MIGRATIONS,
  type Migration,
  type MigrationSet,
  runMigrations,
} from "./migrations.js";
export { type PostgresStoreOptions, postgresStoreOptionsSchema } from "./options.js";
export { PostgresSessionStore } from "./postgres-session-store.js";
export { PostgresSessionStorage, type StorageContext } from "./postgres-storage.js";
