import type { Context } from "hono";
import type { z } from "zod";
import { ApiError } from "../errors/index.js";

/** Where a failed request validation was: body, query, path. */
const PLACES: Record<string, string> = {
  json: "body",
  query: "query",
  param: "path",
  header: "header",
};

/**
 * Turns a failed request validation into a 400 naming the place, the field and the reason,
 * e.g. `body.prompt: Too small: expected string to have >=1 characters`.
 */
export function validationHook(
  result:
    | { success: true; data: unknown; target?: string }
    | { success: false; error: z.ZodError; target?: string },
  _c: Context,
): undefined {
  if (result.success) return undefined;
  const issue = result.error.issues[0];
  const place = PLACES[result.target ?? ""] ?? "request";
  let field = issue?.path.map(String).join(".") ?? "";
  if (issue?.code === "unrecognized_keys")
    field = [field, issue.keys.join(",")].filter(Boolean).join(".");
  throw new ApiError(
    400,
    "invalid_request",
    `${place}${field ? `.${field}` : ""}: ${issue?.message ?? "invalid"}`,
  );
}
