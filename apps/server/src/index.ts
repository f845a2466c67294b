export { type ArborServerApp, createApp, type HealthReport } from "./app.js";
export type { AppDeps } from "./app-deps.js";
export {
  type ApiKeyRecord,
  type ApiKeyStore,
  hashKey,
  type IssuedKey,
  type KeyOwner,
  type TenantRecord,
} from "./auth/api-key-schema.js";
export { FileApiKeyStore, KeyFileError } from "./auth/file-api-key-store.js";
export { MemoryApiKeyStore } from "./auth/memory-api-key-store.js";
export { type SseLimits, type SseMessage, SseParser } from "./client/sse-parser.js";
export type {
  RunStream,
  RunView,
  StreamRunItem,
  StreamRunOptions,
} from "./client/stream-run.js";
export { StreamRunError, type StreamRunErrorCode } from "./client/stream-run-error.js";
export { type ArborClient, type ArborClientExtras, createArborClient } from "./client.js";
export { DEFAULT_LIMITS, type ServerLimits, serverLimitsSchema } from "./config/limits.js";
export {
  loadServerAgents,
  parseServerConfigText,
  readServerConfigFile,
  type ServerAgents,
} from "./config/load-server-config.js";
export { ServerConfigError } from "./config/server-config-error.js";
export { type ServerConfigFile, serverConfigFileSchema } from "./config/server-config-schema.js";
export { helpText, parseServerOptions, type ServerOptions } from "./config/server-options.js";
export { ApiError, type ErrorBody, toApiError } from "./errors/index.js";
export {
  ALL_HEADENDS,
  type HeadendSettings,
  headendSettingsSchema,
  mcpRoutes,
  openAiRoutes,
} from "./headends/index.js";
export { type McpSessionLimits, McpSessions } from "./headends/mcp/index.js";
export { FileRunEventLog } from "./runs/file-run-event-log.js";
export { MemoryRunEventLog } from "./runs/memory-run-event-log.js";
export type { RunEventLog } from "./runs/run-event-log.js";
export {
  RUN_STATUSES,
  type RunRecord,
  type RunStatus,
  runRecordSchema,
} from "./runs/run-record.js";
export {
  type IfBusy,
  RunService,
  type RunServiceOptions,
  type StartRunRequest,
} from "./runs/run-service.js";
export { type ServerRunEvent, serverRunEventSchema } from "./runs/server-run-event.js";
export { type RunningServer, type StartServerContext, startServer } from "./server.js";
