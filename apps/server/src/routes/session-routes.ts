import {
  createModelForTarget,
  createTitleGenerator,
  definitionOf,
  type ModelTargetSpec,
} from "@arbor/orchestration";
import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import type { AppDeps } from "../app-deps.js";
import { ApiError } from "../errors/index.js";
import type { ServerEnv } from "../http/server-env.js";
import {
  errorResponses,
  jsonBody,
  jsonResponse,
  sessionParamsSchema,
} from "../schemas/common-schemas.js";
import {
  createSessionBodySchema,
  forkBodySchema,
  generatedTitleSchema,
  generateTitleBodySchema,
  listSessionsQuerySchema,
  sessionDetailSchema,
  sessionPageSchema,
  sessionSummarySchema,
  setTitleBodySchema,
  titleResponseSchema,
} from "../schemas/session-schemas.js";
import { agentNamed, assertIdle, readSession, writeSession } from "./session-access.js";
import { detailOfSession, summaryOfInfo, summaryOfSession } from "./session-views.js";
import { validationHook } from "./validation-hook.js";

const tags = ["sessions"];

const createSession = createRoute({
  method: "post",
  path: "/sessions",
  tags,
  summary: "Create a session",
  request: { body: jsonBody(createSessionBodySchema) },
  responses: {
    201: jsonResponse(sessionSummarySchema, "The new session"),
    ...errorResponses(400, 401, 413, 415, 429),
  },
});

const listSessions = createRoute({
  method: "get",
  path: "/sessions",
  tags,
  summary: "List sessions, newest change first",
  request: { query: listSessionsQuerySchema },
  responses: {
    200: jsonResponse(sessionPageSchema, "A page of sessions"),
    ...errorResponses(400, 401, 429),
  },
});

const getSession = createRoute({
  method: "get",
  path: "/sessions/{id}",
  tags,
  summary: "Get a session: header, title, leaf, counts, usage",
  request: { params: sessionParamsSchema },
  responses: {
    200: jsonResponse(sessionDetailSchema, "The session"),
    ...errorResponses(400, 401, 404, 429),
  },
});

const deleteSession = createRoute({
  method: "delete",
  path: "/sessions/{id}",
  tags,
  summary: "Delete a session",
  request: { params: sessionParamsSchema },
  responses: { 204: { description: "Deleted" }, ...errorResponses(400, 401, 404, 409, 429) },
});

const setTitle = createRoute({
  method: "put",
  path: "/sessions/{id}/title",
  tags,
  summary: "Set the title",
  request: { params: sessionParamsSchema, body: jsonBody(setTitleBodySchema) },
  responses: {
    200: jsonResponse(titleResponseSchema, "The title"),
    ...errorResponses(400, 401, 404, 409, 415, 429),
  },
});

const clearTitle = createRoute({
  method: "delete",
  path: "/sessions/{id}/title",
  tags,
  summary: "Clear the title (the automatic one shows again)",
  request: { params: sessionParamsSchema },
  responses: {
    200: jsonResponse(titleResponseSchema, "The title now"),
    ...errorResponses(400, 401, 404, 409, 429),
  },
});

const generateTitle = createRoute({
  method: "post",
  path: "/sessions/{id}/title/generate",
  tags,
  summary: "Regenerate the title with the agent's model",
  request: {
    params: sessionParamsSchema,
    body: { ...jsonBody(generateTitleBodySchema), required: false },
  },
  responses: {
    200: jsonResponse(
      generatedTitleSchema,
      "The title (unchanged, with the error, when the model failed)",
    ),
    ...errorResponses(400, 401, 404, 409, 415, 429),
  },
});

const forkSession = createRoute({
  method: "post",
  path: "/sessions/{id}/fork",
  tags,
  summary: "Fork the path from the root to an entry into a new session",
  request: { params: sessionParamsSchema, body: { ...jsonBody(forkBodySchema), required: false } },
  responses: {
    201: jsonResponse(sessionSummarySchema, "The fork"),
    ...errorResponses(400, 401, 404, 415, 429),
  },
});

/** Session routes: create, list, get, delete, title, fork. */
export function sessionRoutes(deps: AppDeps) {
  const now = () => new Date();
  return new OpenAPIHono<ServerEnv>({ defaultHook: validationHook })
    .openapi(createSession, async (c) => {
      const body = c.req.valid("json");
      const session = await deps.store.create({ cwd: body.cwd, tenant: c.get("owner").tenantId });
      try {
        if (body.title !== undefined) await session.setTitle(body.title);
        return c.json(summaryOfSession(session, now()), 201);
      } finally {
        await session.close();
      }
    })
    .openapi(listSessions, async (c) => {
      const query = c.req.valid("query");
      const page = await deps.store.list({
        tenant: c.get("owner").tenantId,
        limit: query.limit,
        ...(query.cursor !== undefined ? { cursor: query.cursor } : {}),
        ...(query.search !== undefined ? { search: query.search } : {}),
        ...(query.cwd !== undefined ? { cwd: query.cwd } : {}),
      });
      return c.json(
        {
          sessions: page.sessions.map(summaryOfInfo),
          ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}),
        },
        200,
      );
    })
    .openapi(getSession, async (c) => {
      const { id } = c.req.valid("param");
      const tenantId = c.get("owner").tenantId;
      const activeRun = await deps.runs.activeRunOf(id, tenantId);
      const detail = await readSession(deps, tenantId, id, (session) =>
        detailOfSession(session, activeRun),
      );
      return c.json(detail, 200);
    })
    .openapi(deleteSession, async (c) => {
      const { id } = c.req.valid("param");
      const tenantId = c.get("owner").tenantId;
      await readSession(deps, tenantId, id, () => undefined);
      await assertIdle(deps, tenantId, id);
      await deps.store.delete(id, { tenant: tenantId });
      return c.body(null, 204);
    })
    .openapi(setTitle, async (c) => {
      const { id } = c.req.valid("param");
      const { title } = c.req.valid("json");
      const result = await writeSession(deps, c.get("owner").tenantId, id, async (session) => {
        await session.setTitle(title);
        return session.getTitle();
      });
      return c.json(result === undefined ? {} : { title: result }, 200);
    })
    .openapi(clearTitle, async (c) => {
      const { id } = c.req.valid("param");
      const result = await writeSession(deps, c.get("owner").tenantId, id, async (session) => {
        await session.clearTitle();
        return session.getTitle();
      });
      return c.json(result === undefined ? {} : { title: result }, 200);
    })
    .openapi(generateTitle, async (c) => {
      const { id } = c.req.valid("param");
      const body = c.req.valid("json") ?? {};
      const definition = definitionOf(agentNamed(deps, body.agent));
      const target = definition.models[0] as ModelTargetSpec;
      const model =
        typeof deps.models === "function"
          ? deps.models(target)
          : createModelForTarget(target, deps.models);
      const outcome = await writeSession(deps, c.get("owner").tenantId, id, (session) =>
        session.regenerateTitle(createTitleGenerator(model)),
      );
      return c.json(
        {
          ...(outcome.title !== undefined ? { title: outcome.title } : {}),
          ...(outcome.error !== undefined
            ? {
                error:
                  outcome.error instanceof Error ? outcome.error.message : String(outcome.error),
              }
            : {}),
        },
        200,
      );
    })
    .openapi(forkSession, async (c) => {
      const { id } = c.req.valid("param");
      const body = c.req.valid("json") ?? {};
      const tenantId = c.get("owner").tenantId;
      const entryId = await readSession(deps, tenantId, id, (session) => {
        const target = body.entryId ?? session.getLeafId();
        if (target === null || !session.getEntry(target)) {
          throw new ApiError(
            404,
            "entry_not_found",
            body.entryId
              ? `no entry "${body.entryId}" in session "${id}"`
              : `session "${id}" has no entries to fork`,
          );
        }
        return target;
      });
      const fork = await deps.store.fork(id, entryId, { tenant: tenantId });
      try {
        return c.json(summaryOfSession(fork, now()), 201);
      } finally {
        await fork.close();
      }
    });
}
