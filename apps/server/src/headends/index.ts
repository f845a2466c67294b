import type { Context } from "hono";
import type { AppDeps } from "../app-deps.js";
import type { ApiError } from "../errors/index.js";
import { OPENAI_PATHS, openAiErrorBody } from "./openai/index.js";
import { OpenAiParamError } from "./openai/openai-errors.js";

export { ALL_HEADENDS, type HeadendSettings, headendSettingsSchema } from "./headend-settings.js";
export { openAiRoutes } from "./openai/index.js";

/**
 * The error response of a headend's path in its protocol's shape (OpenAI's `{ error: {
 * message, type, param, code } }`), or undefined for a path of the native API.
 */
export function headendErrorResponse(
  c: Context,
  deps: AppDeps,
  failure: ApiError,
): Response | undefined {
  const on = deps.headends;
  if ((on?.openai ?? true) && OPENAI_PATHS.test(c.req.path)) {
    const param = OpenAiParamError.isParamError(failure) ? failure.param : null;
    return c.json(openAiErrorBody(failure, param), failure.status);
  }
  return undefined;
}
