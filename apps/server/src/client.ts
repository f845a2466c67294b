import { hc } from "hono/client";
import type { ArborServerApp } from "./app.js";

/**
 * A typed client of an `arbor-server`: every route, its parameters and its responses are
 * checked by TypeScript.
 * @example
 * const client = createArborClient("http://127.0.0.1:8787", process.env.ARBOR_API_KEY);
 * const res = await client.v1.sessions.$post({ json: { cwd: "/srv/app" } });
 */
export function createArborClient(
  baseUrl: string,
  apiKey: string,
  options: { fetch?: typeof fetch } = {},
) {
  return hc<ArborServerApp>(baseUrl, {
    headers: { authorization: `Bearer ${apiKey}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}

/** The typed client {@link createArborClient} returns. */
export type ArborClient = ReturnType<typeof createArborClient>;
