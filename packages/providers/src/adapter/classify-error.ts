import { classifyHttpStatus, type ModelErrorKind } from "../error-kind.js";
import type { ModelErrorEvent } from "../spec/events.js";

const CONTEXT_OVERFLOW =
  /context[_ ]length|context window|prompt is too long|maximum context|too many tokens|request_too_large|input is too long/i;
const QUOTA = /insufficient_quota|quota|billing|credit balance|payment required/i;

/** Error `type` / `code` strings providers put in error bodies, mapped to kinds. */
const TYPE_KINDS: Readonly<Record<string, ModelErrorKind>> = {
  rate_limit_error: "rate_limit",
  rate_limit_exceeded: "rate_limit",
  authentication_error: "auth_error",
  permission_error: "auth_error",
  invalid_api_key: "auth_error",
  billing_error: "quota_exceeded",
  insufficient_quota: "quota_exceeded",
  overloaded_error: "model_error",
  api_error: "model_error",
  server_error: "model_error",
  timeout_error: "timeout",
  request_too_large: "context_overflow",
  context_length_exceeded: "context_overflow",
  invalid_request_error: "invalid_response",
};

const NETWORK_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
  "ETIMEDOUT",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
]);

interface ErrorLike {
  name?: unknown;
  message?: unknown;
  status?: unknown;
  headers?: unknown;
  error?: unknown;
  type?: unknown;
  code?: unknown;
  cause?: unknown;
}

/**
 * Maps whatever an SDK threw into a classified `error` event. Works on the shape of the
 * error (status, headers, body, cause) rather than on classes, so duplicated SDK copies
 * and OpenAI-compatible servers classify the same way.
 */
export function classifyProviderError(thrown: unknown): ModelErrorEvent {
  const error = (typeof thrown === "object" && thrown !== null ? thrown : {}) as ErrorLike;
  const message = typeof error.message === "string" ? error.message : String(thrown);
  const body = bodyText(error);
  const status = typeof error.status === "number" ? error.status : undefined;

  if (status !== undefined) {
    let kind = classifyHttpStatus(status);
    if (CONTEXT_OVERFLOW.test(body)) kind = "context_overflow";
    else if (QUOTA.test(body) && kind !== "auth_error") kind = "quota_exceeded";
    const event: ModelErrorEvent = { type: "error", kind, message, status };
    if (kind === "rate_limit") {
      const retryAfterMs = retryAfterFromHeaders(error.headers);
      if (retryAfterMs !== undefined) event.retryAfterMs = retryAfterMs;
    }
    return event;
  }
  if (isAbort(error)) return { type: "error", kind: "aborted", message: "the request was aborted" };
  if (error.name === "APIConnectionTimeoutError")
    return { type: "error", kind: "timeout", message };
  const typed = errorType(error);
  if (typed !== undefined) {
    let kind = TYPE_KINDS[typed] ?? "model_error";
    if (CONTEXT_OVERFLOW.test(body)) kind = "context_overflow";
    else if (QUOTA.test(body) && kind !== "auth_error") kind = "quota_exceeded";
    return { type: "error", kind, message };
  }
  if (
    error.name === "SyntaxError" ||
    (error.cause as ErrorLike | undefined)?.name === "SyntaxError"
  ) {
    return { type: "error", kind: "invalid_response", message: `unparseable chunk: ${message}` };
  }
  if (error.name === "APIConnectionError" || isNetworkFailure(error)) {
    return { type: "error", kind: "network_error", message: describeNetwork(error, message) };
  }
  return { type: "error", kind: "model_error", message };
}

function bodyText(error: ErrorLike): string {
  let text = typeof error.message === "string" ? error.message : "";
  if (error.error !== undefined) {
    try {
      text += ` ${JSON.stringify(error.error)}`;
    } catch {
      // a body that cannot be serialised adds nothing to classify on
    }
  }
  return text;
}

function errorType(error: ErrorLike): string | undefined {
  const body = (typeof error.error === "object" && error.error !== null ? error.error : {}) as {
    type?: unknown;
    code?: unknown;
    error?: { type?: unknown; code?: unknown };
  };
  // Codes are more specific than types (OpenAI: type "requests", code "rate_limit_exceeded").
  const candidates = [
    body.code,
    body.error?.code,
    error.code,
    error.type,
    body.type,
    body.error?.type,
  ];
  const strings = candidates.filter((c): c is string => typeof c === "string" && c !== "error");
  return (
    strings.find((c) => c in TYPE_KINDS) ?? (error.error !== undefined ? strings[0] : undefined)
  );
}

function isAbort(error: ErrorLike): boolean {
  return error.name === "AbortError" || error.name === "APIUserAbortError";
}

function isNetworkFailure(error: ErrorLike): boolean {
  for (let current: ErrorLike | undefined = error, depth = 0; current && depth < 5; depth++) {
    if (typeof current.code === "string" && NETWORK_CODES.has(current.code)) return true;
    if (
      current.name === "TypeError" &&
      /terminated|fetch failed|other side closed/.test(String(current.message))
    ) {
      return true;
    }
    current = current.cause as ErrorLike | undefined;
  }
  return false;
}

function describeNetwork(error: ErrorLike, message: string): string {
  const cause = error.cause as ErrorLike | undefined;
  return cause && typeof cause.message === "string" ? `${message} (${cause.message})` : message;
}

/**
 * Reads `retry-after-ms` (milliseconds) or `retry-after` (seconds or an HTTP date).
 *
 * @returns the wait in milliseconds, or `undefined` when the headers name none.
 */
export function retryAfterFromHeaders(headers: unknown, now = Date.now()): number | undefined {
  const get = (name: string): string | null =>
    headers && typeof (headers as Headers).get === "function"
      ? (headers as Headers).get(name)
      : null;
  const ms = get("retry-after-ms");
  if (ms !== null && ms.trim() !== "" && Number.isFinite(Number(ms)))
    return Math.max(0, Number(ms));
  const after = get("retry-after");
  if (after === null || after.trim() === "") return undefined;
  if (Number.isFinite(Number(after))) return Math.max(0, Number(after) * 1000);
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
