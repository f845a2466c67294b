import type { Context } from "hono";
import type { AppDeps } from "../../app-deps.js";
import type { ServerEnv } from "../../http/server-env.js";
import { modelNotFound } from "./openai-errors.js";

/** An agent as an OpenAI model. */
function modelOf(name: string) {
  return { id: name, object: "model", created: 0, owned_by: "arbor" };
}

/** `GET /v1/models`: the agents the key's tenant may run, as models. */
export function listModels(c: Context<ServerEnv>, deps: AppDeps): Response {
  return c.json({ object: "list", data: [...deps.agents.keys()].map(modelOf) });
}

/** `GET /v1/models/:id`: one agent as a model; 404 `model_not_found` for another name. */
export function getModel(c: Context<ServerEnv>, deps: AppDeps): Response {
  const id = c.req.param("id") ?? "";
  if (!deps.agents.has(id)) throw modelNotFound(id);
  return c.json(modelOf(id));
}
