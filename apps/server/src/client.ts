import { hc } from "hono/client";
import type { ArborServerApp } from "./app.js";
import { type RunStream, type StreamRunOptions, streamRun } from "./client/stream-run.js";

/** What the typed client adds to hono's `hc` routes. */
export interface ArborClientExtras {
  /**
   * Reads a run's events (`GET /v1/runs/:id/events`) as typed items, each `data:` parsed with
   * `serverRunEventSchema`. When the connection drops before the server's `end` message it
   * reconnects with `Last-Event-ID` set to the last `seq` it yielded (up to `retries` times
   * in a row, waiting `retryDelayMs`, doubled each time), so every event is yielded once, in
   * order, with no gap. Iteration ends after `end`; `result` then resolves with the run.
   *
   * Items are `{ kind: "event", event }`, or `{ kind: "resync", run, missedFrom,
   * missedThrough }` when the log's retention removed events this client had not read (the
   * stream goes on with the events still kept). Anything else ends iteration with a
   * `StreamRunError`: `http_error` (with the server's `status` and `serverCode`, e.g. 404
   * `not_found`), `not_event_stream`, `invalid_event` (naming the event's `seq`),
   * `invalid_message`, `sse_too_large`, `sequence_gap`, `connection_lost` or `aborted`.
   *
   * @param runId - the run (`run_…`)
   * @param options - `afterSeq` to start after, `signal`, `retries`, `retryDelayMs`, size limits
   * @example
   * const client = createArborClient("http://127.0.0.1:8787", process.env.ARBOR_API_KEY);
   * const stream = client.streamRun(runId);
   * for await (const item of stream) {
   *   if (item.kind === "resync") console.warn(`events ${item.missedFrom}–${item.missedThrough} are gone`);
   *   else if (item.event.type === "text_delta") process.stdout.write(item.event.delta);
   * }
   * const run = await stream.result; // the run as `end` gave it: status, result, …
   */
  streamRun(runId: string, options?: StreamRunOptions): RunStream;
}

/**
 * A typed client of an `arbor-server`: every route, its parameters and its responses are
 * checked by TypeScript, and {@link ArborClientExtras.streamRun} reads a run's events.
 * @example
 * const client = createArborClient("http://127.0.0.1:8787", process.env.ARBOR_API_KEY);
 * const res = await client.v1.sessions.$post({ json: { cwd: "/srv/app" } });
 */
export function createArborClient(
  baseUrl: string,
  apiKey: string,
  options: { fetch?: typeof fetch } = {},
) {
  const routes = hc<ArborServerApp>(baseUrl, {
    headers: { authorization: `Bearer ${apiKey}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const connection = { baseUrl, apiKey, ...(options.fetch ? { fetch: options.fetch } : {}) };
  const extras: ArborClientExtras = {
    streamRun: (runId, streamOptions) => streamRun(connection, runId, streamOptions),
  };
  // hc's client is a proxy that turns every property into a path: the extras are looked up first.
  return new Proxy(routes, {
    get: (target, key, receiver) =>
      Object.hasOwn(extras, key)
        ? extras[key as keyof ArborClientExtras]
        : Reflect.get(target, key, receiver),
  }) as typeof routes & ArborClientExtras;
}

/** The typed client {@link createArborClient} returns. */
export type ArborClient = ReturnType<typeof createArborClient>;
