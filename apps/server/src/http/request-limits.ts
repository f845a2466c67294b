import type { MiddlewareHandler } from "hono";
import type { ServerLimits } from "../config/limits.js";
import { ApiError } from "../errors/index.js";
import { jsonDepth } from "./json-depth.js";
import { declaredOver, readBodyText } from "./request-body.js";
import type { ServerEnv } from "./server-env.js";

const JSON_TYPE = /^application\/([\w.-]+\+)?json$/i;
const BODY_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * Reads and checks a request body before any route reads it: over the size limit 413 (by
 * `Content-Length` on any method, else by the bytes that arrive); a non-empty body must be
 * JSON (415 otherwise), well formed (400 `invalid_json`) and no deeper than the limit (400
 * `json_too_deep`). The text stays cached for the route's validator.
 */
export function jsonBodyCheck(limits: ServerLimits): MiddlewareHandler {
  const tooLarge = () =>
    new ApiError(413, "body_too_large", `the request body is over ${limits.bodyBytes} bytes`);
  return async (c, next) => {
    if (!BODY_METHODS.has(c.req.method)) {
      if (declaredOver(c, limits.bodyBytes)) throw tooLarge();
      return next();
    }
    const read = await readBodyText(c, limits.bodyBytes);
    if ("failure" in read) {
      if (read.failure === "too_large") throw tooLarge();
      throw new ApiError(400, "invalid_request", "the request body ended before its end");
    }
    const text = read.text;
    const type = (c.req.header("content-type") ?? "").split(";")[0]?.trim() ?? "";
    if (text.length === 0) {
      // An empty JSON body is an empty object: routes with optional bodies take it, the
      // others name the missing fields.
      if (JSON_TYPE.test(type))
        (c.req.bodyCache as { text?: Promise<string> }).text = Promise.resolve("{}");
      return next();
    }
    if (!JSON_TYPE.test(type)) {
      throw new ApiError(
        415,
        "unsupported_media_type",
        `send the body as application/json (got "${type.slice(0, 100) || "no content type"}")`,
      );
    }
    if (jsonDepth(text, limits.jsonDepth) > limits.jsonDepth) {
      throw new ApiError(
        400,
        "json_too_deep",
        `the JSON body nests deeper than ${limits.jsonDepth} levels`,
      );
    }
    try {
      JSON.parse(text);
    } catch {
      throw new ApiError(400, "invalid_json", "the body is not valid JSON");
    }
    return next();
  };
}

/**
 * Requests per key per minute, counted in this process (a fixed one-minute window). Live
 * counters only: with several instances each holds its own share.
 */
export function rateLimit(
  limits: ServerLimits,
  now: () => number = Date.now,
): MiddlewareHandler<ServerEnv> {
  const windows = new Map<string, { start: number; count: number }>();
  return async (c, next) => {
    const owner = c.get("owner");
    const time = now();
    const minute = time - (time % 60_000);
    let window = windows.get(owner.keyId);
    if (!window || window.start !== minute) {
      if (windows.size > 10_000) windows.clear();
      window = { start: minute, count: 0 };
      windows.set(owner.keyId, window);
    }
    window.count++;
    if (window.count > limits.requestsPerMinute) {
      c.header("Retry-After", String(Math.ceil((minute + 60_000 - time) / 1000)));
      throw new ApiError(
        429,
        "rate_limited",
        `more than ${limits.requestsPerMinute} requests this minute for this key; retry after the Retry-After seconds`,
      );
    }
    return next();
  };
}
