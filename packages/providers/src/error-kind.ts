/** The classified kinds of a failed model call; the runner's retry policy keys on these. */
export const MODEL_ERROR_KINDS = [
  "rate_limit",
  "auth_error",
  "quota_exceeded",
  "model_error",
  "network_error",
  "timeout",
  "invalid_response",
  "context_overflow",
  "aborted",
] as const;

/** One of {@link MODEL_ERROR_KINDS}. */
export type ModelErrorKind = (typeof MODEL_ERROR_KINDS)[number];

/**
 * Classifies an HTTP status from a provider by status alone. Adapters refine the answer
 * with the response body (quota, context length) where the status is ambiguous.
 */
export function classifyHttpStatus(status: number): ModelErrorKind {
  if (status === 401 || status === 403) return "auth_error";
  if (status === 429) return "rate_limit";
  if (status === 402) return "quota_exceeded";
  if (status === 408) return "timeout";
  if (status === 413) return "context_overflow";
  if (status >= 500) return "model_error";
  return "invalid_response";
}
