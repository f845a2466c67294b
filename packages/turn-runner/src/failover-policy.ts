import type { ModelErrorEvent } from "@arbor/providers";
import type { FailoverAction } from "./contracts/index.js";

export { FAILOVER_CUSTOM_TYPE } from "@arbor/session-store";

/**
 * How a `model_error` is handled: `retry` (the server failed transiently: try again after a
 * backoff) or `skip` (this target cannot serve the request as made: move on at once).
 */
export type ModelErrorHandling = "retry" | "skip";

/** Statuses of server failures that pass: overloaded, bad gateway, unavailable, timeouts. */
const TRANSIENT_STATUSES = new Set([500, 502, 503, 504]);

/**
 * The default classification of a `model_error`: failures without a status (cut streams,
 * errors inside a stream) and transient server statuses (500, 502-504, 520 and above, such
 * as Anthropic's 529 "overloaded") are retried; other statuses (501 not implemented, 505
 * and the like) say retrying this target will not help, so it is skipped.
 */
export function classifyModelError(error: ModelErrorEvent): ModelErrorHandling {
  const { status } = error;
  if (status === undefined || TRANSIENT_STATUSES.has(status) || status >= 520) return "retry";
  return "skip";
}

/** What a failed attempt did to the pool, and how long to wait before the next attempt. */
export interface FailoverDecision {
  action: FailoverAction;
  delayMs: number;
}
