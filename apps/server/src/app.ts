import { Hono } from "hono";

/** What the server reports about itself on `GET /health`. */
export interface HealthReport {
  status: "ok";
  version: string;
}

/**
 * Builds the HTTP application. Kept free of sockets so tests call `app.request()` in-process.
 * @param options.version - the version reported by `/health`
 */
export function createApp(options: { version: string }): Hono {
  const app = new Hono();
  app.get("/health", (c) => c.json<HealthReport>({ status: "ok", version: options.version }));
  app.notFound((c) =>
    c.json(
      { error: { code: "not_found", message: `no route for ${c.req.method} ${c.req.path}` } },
      404,
    ),
  );
  return app;
}
