import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import type { AppDeps } from "../app-deps.js";
import { ApiError } from "../errors/index.js";
import type { ServerEnv } from "../http/server-env.js";
import { errorResponses, jsonBody, jsonResponse } from "../schemas/common-schemas.js";
import {
  agentCommandsResponseSchema,
  agentParamsSchema,
  commandParamsSchema,
  runCommandBodySchema,
  uiAnswerBodySchema,
  uiAnswerParamsSchema,
  uiAnswerResponseSchema,
} from "../schemas/extension-schemas.js";
import { startRunResponseSchema } from "../schemas/run-schemas.js";
import { validationHook } from "./validation-hook.js";

const answerUi = createRoute({
  method: "post",
  path: "/runs/{id}/ui/{requestId}",
  tags: ["runs"],
  summary: "Answer a UI request an extension made during the run",
  description:
    "A `ui_request` event on the run's stream carries the request's id, kind and expiry. Answer with the request's kind, or `dismiss`. A request not answered before `expiresAt`, or open when the run is stopped, resolves to no answer.",
  request: { params: uiAnswerParamsSchema, body: jsonBody(uiAnswerBodySchema) },
  responses: {
    200: jsonResponse(uiAnswerResponseSchema, "The extension has the answer"),
    ...errorResponses(400, 401, 404, 409, 413, 415, 429),
  },
});

const listCommands = createRoute({
  method: "get",
  path: "/agents/{agent}/commands",
  tags: ["extensions"],
  summary: "The commands the agent's extensions register",
  request: { params: agentParamsSchema },
  responses: {
    200: jsonResponse(agentCommandsResponseSchema, "The commands"),
    ...errorResponses(400, 401, 404, 429),
  },
});

const runCommand = createRoute({
  method: "post",
  path: "/sessions/{id}/commands/{name}",
  tags: ["extensions"],
  summary: "Run an extension command on a session",
  description:
    "Starts a run that executes the command; its events (UI requests included) are on the run's stream, then `command_end`. Text the command returns is sent as the next prompt within the same run.",
  request: { params: commandParamsSchema, body: jsonBody(runCommandBodySchema) },
  responses: {
    202: jsonResponse(startRunResponseSchema, "The command's run was accepted"),
    ...errorResponses(400, 401, 404, 409, 413, 415, 429),
  },
});

function requireAgent(deps: AppDeps, agent: string): void {
  if (!deps.agents.has(agent)) {
    throw new ApiError(
      404,
      "agent_not_found",
      `no agent "${agent}"; agents: ${[...deps.agents.keys()].join(", ") || "(none)"}`,
    );
  }
}

/** Extension routes: answer UI requests, list and run extension commands. */
export function extensionRoutes(deps: AppDeps) {
  return new OpenAPIHono<ServerEnv>({ defaultHook: validationHook })
    .openapi(answerUi, async (c) => {
      const { id, requestId } = c.req.valid("param");
      const answer = c.req.valid("json");
      if (!deps.runs.answerUi) {
        throw new ApiError(404, "ui_request_not_found", `no UI request "${requestId}" in this run`);
      }
      await deps.runs.answerUi(id, requestId, answer, c.get("owner").tenantId);
      return c.json(
        {
          requestId,
          outcome: answer.kind === "dismiss" ? ("dismissed" as const) : ("answered" as const),
        },
        200,
      );
    })
    .openapi(listCommands, async (c) => {
      const { agent } = c.req.valid("param");
      requireAgent(deps, agent);
      const commands = deps.extensions?.commandsOf(agent) ?? [];
      return c.json({ agent, commands: commands.map((command) => ({ ...command })) }, 200);
    })
    .openapi(runCommand, async (c) => {
      const { id, name } = c.req.valid("param");
      const body = c.req.valid("json");
      requireAgent(deps, body.agent);
      const known = deps.extensions?.commandsOf(body.agent) ?? [];
      if (!known.some((command) => command.name === name)) {
        throw new ApiError(
          404,
          "command_not_found",
          `agent "${body.agent}" has no command "/${name}"; commands: ${known.map((command) => command.name).join(", ") || "(none)"}`,
        );
      }
      const record = await deps.runs.start({
        tenantId: c.get("owner").tenantId,
        sessionId: id,
        agent: body.agent,
        prompt: `/${name}${body.args ? ` ${body.args}` : ""}`,
        ifBusy: body.ifBusy,
        command: { name, args: body.args },
      });
      c.header("Location", `/v1/runs/${record.id}`);
      return c.json(
        { runId: record.id, status: record.status, eventsUrl: `/v1/runs/${record.id}/events` },
        202,
      );
    });
}
