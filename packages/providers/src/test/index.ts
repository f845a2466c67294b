export {
  chunkText,
  DEFAULT_SCRIPT_USAGE,
  type ScriptBlock,
  type ScriptError,
  type ScriptedResponse,
  type ScriptedResponseInput,
  scriptArgumentsText,
  scriptBlockSchema,
  scriptErrorMessage,
  scriptErrorSchema,
  scriptedResponseSchema,
  scriptStopReason,
  scriptToolCallId,
} from "./script.js";
export { type ScriptStep, scriptSteps, scriptToEvents } from "./script-events.js";
export { ScriptExhaustedError } from "./script-exhausted-error.js";
export {
  SCRIPTED_MODEL_INFO,
  ScriptedModel,
  type ScriptedModelOptions,
} from "./scripted-model.js";
