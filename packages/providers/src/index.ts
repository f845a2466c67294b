export { classifyProviderError, retryAfterFromHeaders } from "./adapter/classify-error.js";
export { parseToolArguments } from "./adapter/tool-arguments.js";
export { classifyHttpStatus, MODEL_ERROR_KINDS, type ModelErrorKind } from "./error-kind.js";
export { ModelConfigError, ProvidersError } from "./errors.js";
export {
  costOf,
  findModelInfo,
  MODEL_APIS,
  MODEL_CATALOGUE,
  type ModelApi,
  type ModelCapabilities,
  type ModelInfo,
  type ModelPricing,
  modelCapabilitiesSchema,
  modelInfoSchema,
  modelPricingSchema,
} from "./spec/catalogue.js";
export { type CollectedStream, collectStream, summarizeEvents } from "./spec/collect.js";
export {
  MODEL_EVENT_TYPES,
  type ModelErrorEvent,
  type ModelEvent,
  modelEventSchema,
  STOP_REASONS,
  type StopReason,
  type Usage,
  usageSchema,
} from "./spec/events.js";
export type { Model } from "./spec/model.js";
export {
  type AssistantMessage,
  assistantMessageSchema,
  type ImagePart,
  imagePartSchema,
  type ModelMessage,
  type ModelRequest,
  modelMessageSchema,
  modelRequestSchema,
  REASONING_LEVELS,
  type ReasoningLevel,
  type TextPart,
  type ThinkingPart,
  type ToolCallPart,
  type ToolDefinition,
  type ToolResultMessage,
  textPartSchema,
  thinkingPartSchema,
  toolCallPartSchema,
  toolDefinitionSchema,
  toolResultMessageSchema,
  type UserMessage,
  userMessageSchema,
} from "./spec/request.js";
export { toolFromZod } from "./spec/tool-definition.js";
