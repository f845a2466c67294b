export { classifyHttpStatus, MODEL_ERROR_KINDS, type ModelErrorKind } from "./error-kind.js";
