import { classifyFailure } from "../error-kind.js";
import { redactSecrets } from "../secrets/redact-secrets.js";
import type { ModelErrorEvent } from "../spec/events.js";

type JsonObject = Record<string, unknown>;
const asObject = (value: unknown): JsonObject | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as JsonObject)
    : undefined;

/** The Google RPC status names and the kinds they mean. */
const RPC_STATUS: Readonly<Record<string, ModelErrorEvent["kind"]>> = {
  UNAUTHENTICATED: "auth_error",
  PERMISSION_DENIED: "auth_error",
  RESOURCE_EXHAUSTED: "rate_limit",
  UNAVAILABLE: "model_error",
  INTERNAL: "model_error",
  DEADLINE_EXCEEDED: "timeout",
};

/**
 * The error body inside a `@google/genai` `ApiError` message: the SDK puts the JSON body
 * there (`{"error":{…}}`), after `got status: X. ` for an error in the stream.
 */
export function geminiErrorBody(message: string): JsonObject | undefined {
  const start = message.indexOf("{");
  if (start < 0) return undefined;
  try {
    return asObject(asObject(JSON.parse(message.slice(start)))?.error);
  } catch {
    return undefined;
  }
}

/** `RetryInfo.retryDelay` ("24s", "1.5s") in milliseconds. */
function retryDelayOf(details: readonly JsonObject[]): number | undefined {
  for (const detail of details) {
    if (!String(detail["@type"] ?? "").endsWith("google.rpc.RetryInfo")) continue;
    const match = /^(\d+(?:\.\d+)?)s$/.exec(String(detail.retryDelay ?? ""));
    if (match) return Math.round(Number(match[1]) * 1000);
  }
  return undefined;
}

/**
 * True when a `QuotaFailure` names a quota that waiting seconds does not refill: a daily
 * quota (`…PerDay…`) or one whose value is 0 (the tier has no access to the model).
 */
function quotaSpent(details: readonly JsonObject[]): boolean {
  for (const detail of details) {
    if (!String(detail["@type"] ?? "").endsWith("google.rpc.QuotaFailure")) continue;
    const violations = Array.isArray(detail.violations) ? detail.violations : [];
    for (const violation of violations.map(asObject)) {
      if (/PerDay/i.test(String(violation?.quotaId ?? ""))) return true;
      if (String(violation?.quotaValue ?? "") === "0") return true;
    }
  }
  return false;
}

/** The reasons of `ErrorInfo` details (`API_KEY_INVALID`). */
function reasonsOf(details: readonly JsonObject[]): string[] {
  return details.flatMap((detail) =>
    String(detail["@type"] ?? "").endsWith("google.rpc.ErrorInfo") &&
    typeof detail.reason === "string"
      ? [detail.reason]
      : [],
  );
}

/**
 * Classifies a Gemini error (an `ApiError` of `@google/genai`, whose message holds the
 * body) by its status, RPC status, details and wording: `RetryInfo` becomes
 * `retryAfterMs`, a spent daily (or zero) quota `quota_exceeded`, `API_KEY_INVALID`
 * `auth_error`. Returns `undefined` for errors that carry no Gemini error body.
 */
export function classifyGeminiError(
  status: number | undefined,
  message: string,
  secrets: readonly (string | undefined)[],
): ModelErrorEvent | undefined {
  const body = geminiErrorBody(message);
  if (body === undefined) return undefined;
  const details: JsonObject[] = [];
  for (const detail of Array.isArray(body.details) ? body.details : []) {
    const object = asObject(detail);
    if (object) details.push(object);
  }
  const rpc = typeof body.status === "string" ? body.status : undefined;
  const said = typeof body.message === "string" ? body.message : message;
  const code = status ?? (typeof body.code === "number" ? body.code : undefined);
  const reasons = reasonsOf(details);
  let kind: ModelErrorEvent["kind"];
  if (reasons.includes("API_KEY_INVALID")) kind = "auth_error";
  else if ((code === 429 || rpc === "RESOURCE_EXHAUSTED") && quotaSpent(details)) {
    kind = "quota_exceeded";
  } else {
    kind = classifyFailure({ status: code, codes: [], text: said });
    const named = rpc === undefined ? undefined : RPC_STATUS[rpc];
    if (named !== undefined && (kind === "invalid_response" || kind === "model_error")) {
      kind = named;
    }
  }
  const event: ModelErrorEvent = {
    type: "error",
    kind,
    message: redactSecrets(`${rpc ? `${rpc}: ` : ""}${said}`, secrets),
  };
  if (code !== undefined) event.status = code;
  if (kind === "rate_limit") {
    const wait = retryDelayOf(details);
    if (wait !== undefined) event.retryAfterMs = wait;
  }
  return event;
}
