export { ApiError, type ApiErrorStatus, type ErrorBody, errorBody } from "./api-error.js";
export { toApiError } from "./error-mapping.js";
export { runInProgress, sessionHeld } from "./session-busy.js";
