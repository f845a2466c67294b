export {
  AZURE_OPENAI_DEFAULT_API_VERSION,
  type AzureOpenAIModelOptions,
  createAzureOpenAIModel,
} from "./azure-openai-model.js";
export { createOpenAIChatModel, type OpenAIChatModelOptions } from "./openai-chat-model.js";
export {
  applyPreset,
  OPENAI_COMPATIBLE_PRESET_NAMES,
  OPENAI_COMPATIBLE_PRESETS,
  type OpenAICompatiblePreset,
  type OpenAICompatiblePresetName,
  type PresetReasoning,
} from "./openai-presets.js";
export { toOpenAIRequest } from "./openai-request.js";
export {
  createOpenAIResponsesModel,
  type OpenAIResponsesModelOptions,
  RESPONSES_CHAIN_LIMIT,
} from "./openai-responses-model.js";
export { type ResponsesRequestSettings, toResponsesRequest } from "./openai-responses-request.js";
