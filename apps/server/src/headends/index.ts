import type { Context } from "hono";
import type { AppDeps } from "../app-deps.js";
import type { ApiError } from "../errors/index.js";
import { OPENAI_PATHS, openAiErrorBody } from "./openai/index.js";
import { OpenAiParamError } from "./openai/openai-errors.js";

const MCP_PATH = /^\/mcp\/?$/;
const A2A_PATH = /^\/a2a\/?$/;

export { a2aRoutes, agentCardRoutes } from "./a2a/index.js";
export { ALL_HEADENDS, type HeadendSettings, headendSettingsSchema } from "./headend-settings.js";
export { mcpRoutes } from "./mcp/index.js";
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
  if ((on?.mcp ?? true) && MCP_PATH.test(c.req.path)) {
    // JSON-RPC's shape; the status says what HTTP says (401 without a valid key).
    return c.json(
      {
        jsonrpc: "2.0",
        error: { code: -32000, message: failure.message, data: { code: failure.code } },
        id: null,
      },
      failure.status,
    );
  }
  if ((on?.a2a ?? true) && A2A_PATH.test(c.req.path)) {
    return c.json(
      {
        jsonrpc: "2.0",
        error: { code: -32000, message: failure.message, data: { code: failure.code } },
        id: null,
      },
      failure.status,
    );
  }
  return undefined;
}
