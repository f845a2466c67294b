// What the apps use of the layers below orchestration, listed by name. Apps import only
// orchestration, workspace, session-store (+ postgres) and html-export; the layering check
// enforces it. Add a name here only when an app needs it.

/** Extension runner, events and UI contracts apps drive and render; re-exported so apps need not depend on `@arbor/extensions-api`. */
export {
  type CommandOutcome,
  type CustomUIKey,
  EXTENSION_EVENT_NAMES,
  EXTENSIONS_DIR,
  type ExportableMessage,
  type ExportRendering,
  type ExtensionAPI,
  type ExtensionContext,
  type ExtensionErrorEvent,
  type ExtensionEvent,
  ExtensionRunner,
  type ExtensionUIProvider,
  guardExtensionFailures,
  type ProcessFailureSource,
  type RegisteredCommand,
  type RenderedMessage,
  type ToolUpdateEvent,
  type UINotification,
  type UIQuestion,
  type UIRequest,
} from "@arbor/extensions-api";
/** Model contracts and helpers apps use (configs, model picking, redaction); re-exported so apps need not depend on `@arbor/providers`. */
export {
  type CollectedStream,
  collectStream,
  findModelInfo,
  type ImagePart,
  imagePartSchema,
  MODEL_ERROR_KINDS,
  type Model,
  type ModelEvent,
  type ModelInfo,
  type ModelMessage,
  type ModelRequest,
  modelEventSchema,
  modelInfoSchema,
  REASONING_LEVELS,
  REDACTED,
  type ReasoningLevel,
  redactSecrets,
  STOP_REASONS,
  toolDefinitionSchema,
  type Usage,
  usageSchema,
} from "@arbor/providers";
/** The Anthropic Messages adapter, for apps that build a model themselves; re-exported so apps need not depend on `@arbor/providers`. */
export { createAnthropicMessagesModel } from "@arbor/providers/anthropic";
/** The OpenAI chat adapter, for apps that build a model themselves; re-exported so apps need not depend on `@arbor/providers`. */
export { createOpenAIChatModel } from "@arbor/providers/openai";
/** TTSR rule shapes apps configure; re-exported so apps need not depend on `@arbor/ttsr`. */
export { type TtsrRule, type TtsrRuleInput, ttsrRuleSchema } from "@arbor/ttsr";
/** The TTSR rule-file loader apps call on project folders; re-exported so apps need not depend on `@arbor/ttsr`. */
export { loadRules, type RuleLoadWarning } from "@arbor/ttsr/loader";
/** Agent runs, tools, MCP and the session errors apps map; re-exported so apps need not depend on `@arbor/turn-runner`. */
export {
  AgentBusyError,
  AgentClosedError,
  type AgentEvent,
  type AgentResult,
  type AgentRun,
  type AgentSession,
  type AgentTool,
  connectMcpServers,
  createTitleGenerator,
  defineTool,
  EntryNotFoundError,
  InvalidPromptError,
  InvalidThinkingLevelError,
  type McpConnections,
  McpError,
  type McpServerConfig,
  mcpServerConfigSchema,
  summarizeBranchWithModel,
} from "@arbor/turn-runner";
