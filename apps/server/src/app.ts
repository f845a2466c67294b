import { OpenAPIHono } from "@hono/zod-openapi";
import { cors } from "hono/cors";
import { HTTPException } from "hono/http-exception";
import { timeout } from "hono/timeout";
import type { AppDeps } from "./app-deps.js";
import { errorBody, toApiError } from "./errors/index.js";
import {
  a2aRoutes,
  agentCardRoutes,
  headendErrorResponse,
  mcpRoutes,
  openAiRoutes,
} from "./headends/index.js";
import { AuthFailures } from "./http/auth-failures.js";
import { adminAuth, tenantAuth } from "./http/bearer-auth.js";
import { jsonBodyCheck, rateLimit } from "./http/request-limits.js";
import type { ServerEnv } from "./http/server-env.js";
import { StreamCounter } from "./http/stream-counter.js";
import { adminRoutes } from "./routes/admin-routes.js";
import { extensionRoutes } from "./routes/extension-routes.js";
import { runRoutes } from "./routes/run-routes.js";
import { sessionRoutes } from "./routes/session-routes.js";
import { sessionTreeRoutes } from "./routes/session-tree-routes.js";

/** What the server reports about itself on `GET /health`. */
export interface HealthReport {
  status: "ok";
  version: string;
}

const SSE_PATH = /^\/v1\/runs\/[^/]+\/events$/;

/**
 * Builds the HTTP application over its dependencies. Kept free of sockets so tests call
 * `app.request()` in-process.
 * @example
 * const app = createApp(deps);
 * const res = await app.request("/v1/sessions", { headers: { authorization: `Bearer ${key}` } });
 */
export function createApp(deps: AppDeps) {
  const streams = new StreamCounter(deps.limits.sseStreamsPerKey);
  const app = new OpenAPIHono<ServerEnv>();
  app.onError((error, c) => {
    const failure = toApiError(error);
    if (failure.status === 500) deps.reportError?.(error);
    return headendErrorResponse(c, deps, failure) ?? c.json(errorBody(failure), failure.status);
  });
  app.notFound((c) =>
    c.json(
      { error: { code: "not_found", message: `no route for ${c.req.method} ${c.req.path}` } },
      404,
    ),
  );
  if (deps.corsOrigins?.length) {
    app.use(
      "*",
      cors({
        origin: [...deps.corsOrigins],
        allowHeaders: ["Authorization", "Content-Type", "Last-Event-ID"],
      }),
    );
  }
  const timeLimit = timeout(deps.limits.requestTimeoutMs, () => new HTTPException(408));
  app.use("*", async (c, next) => (SSE_PATH.test(c.req.path) ? next() : timeLimit(c, next)));
  // The key is checked before anything of the body is read or parsed.
  const failures = new AuthFailures(deps.limits.authFailuresPerMinute);
  const checkTenant = tenantAuth(deps.keys, failures);
  app.use("/v1/admin/*", adminAuth(deps.adminKey, failures));
  app.use("/v1/*", async (c, next) =>
    c.req.path.startsWith("/v1/admin/") ? next() : checkTenant(c, next),
  );
  app.use("/v1/*", rateLimit(deps.limits));
  app.use("/v1/*", jsonBodyCheck(deps.limits));

  const routes = app
    .get("/health", (c) => c.json<HealthReport>({ status: "ok", version: deps.version }))
    .get("/ready", async (c) => {
      try {
        await (deps.ready ? deps.ready() : deps.store.list({ limit: 1 }));
        return c.json({ status: "ready" as const }, 200);
      } catch {
        return c.json(
          { error: { code: "not_ready", message: "the session store cannot be reached" } },
          503,
        );
      }
    })
    .route("/v1", sessionRoutes(deps))
    .route("/v1", sessionTreeRoutes(deps))
    .route("/v1", runRoutes(deps, streams))
    .route("/v1", extensionRoutes(deps))
    .route("/v1/admin", adminRoutes(deps, streams));
  if (deps.headends?.openai ?? true) app.route("/v1", openAiRoutes(deps, streams));
  if (deps.headends?.mcp ?? true) app.route("/mcp", mcpRoutes(deps, checkTenant));
  if (deps.headends?.a2a ?? true) {
    app.route("/.well-known", agentCardRoutes(deps));
    app.route("/a2a", a2aRoutes(deps, checkTenant, streams));
  }

  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: "arbor-server",
      version: deps.version,
      description: "Arbor sessions and agent runs over HTTP + SSE.",
    },
    security: [{ bearer: [] }],
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", {
    type: "http",
    scheme: "bearer",
  });
  return routes;
}

/** The type of the application, for hono's typed client (`hc<ArborServerApp>`). */
export type ArborServerApp = ReturnType<typeof createApp>;
