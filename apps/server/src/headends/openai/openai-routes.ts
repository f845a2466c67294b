import { Hono } from "hono";
import type { AppDeps } from "../../app-deps.js";
import type { ServerEnv } from "../../http/server-env.js";
import type { StreamCounter } from "../../http/stream-counter.js";
import { chatCompletions } from "./chat-completions.js";
import { getModel, listModels } from "./models.js";
import { createResponse, getResponse } from "./responses.js";

/**
 * The OpenAI-compatible headend, mounted under `/v1` behind the native API's key check,
 * body check and rate limit: models, chat completions and responses.
 */
export function openAiRoutes(deps: AppDeps, streams: StreamCounter) {
  return new Hono<ServerEnv>()
    .get("/models", (c) => listModels(c, deps))
    .get("/models/:id", (c) => getModel(c, deps))
    .post("/chat/completions", (c) => chatCompletions(c, deps, streams))
    .post("/responses", (c) => createResponse(c, deps, streams))
    .get("/responses/:id", (c) => getResponse(c, deps));
}
