export { AgentDefinitionError, type DefinitionProblem } from "./agent-definition-error.js";
export { type ChildRunRefusal, ChildRunRefusedError } from "./child-run-errors.js";
export { InvalidHostOptionsError } from "./host-errors.js";
export { MissingApiKeyError, UnknownProviderError } from "./model-target-errors.js";
export {
  ORCHESTRATION_ERROR_CODES,
  OrchestrationError,
  type OrchestrationErrorCode,
} from "./orchestration-error.js";
