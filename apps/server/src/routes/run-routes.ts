import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import type { AppDeps } from "../app-deps.js";
import { ApiError } from "../errors/index.js";
import { sendEachWrite } from "../http/send-each-write.js";
import type { ServerEnv } from "../http/server-env.js";
import type { StreamCounter } from "../http/stream-counter.js";
import { runEventStream } from "../runs/run-event-stream.js";
import type { RunRecord } from "../runs/run-record.js";
import { serverRunEventJsonSchema } from "../runs/server-run-event.js";
import {
  errorResponses,
  jsonBody,
  jsonResponse,
  sessionParamsSchema,
} from "../schemas/common-schemas.js";
import {
  runEventsQuerySchema,
  runParamsSchema,
  runResponseSchema,
  startRunBodySchema,
  startRunResponseSchema,
} from "../schemas/run-schemas.js";
import { validationHook } from "./validation-hook.js";

const tags = ["runs"];
/** The schema of one SSE `data:` of a run's stream. */
const runEventSchema = serverRunEventJsonSchema();

const startRun = createRoute({
  method: "post",
  path: "/sessions/{id}/runs",
  tags,
  summary: "Start a run of an agent on a session",
  description:
    "Answers 202 with the run's id. With `Accept: text/event-stream` it answers 200 with the run's events instead, as `GET /runs/{id}/events` gives them from the start (one request instead of two); `Location` names the run, every event carries its `runId`, and the stream counts against the key's stream limit (429 before anything starts when it is reached). Leaving the stream does not stop the run.",
  request: { params: sessionParamsSchema, body: jsonBody(startRunBodySchema) },
  responses: {
    200: {
      description:
        "With Accept: text/event-stream: the run's events from the start; each `data:` is one RunEvent",
      content: { "text/event-stream": { schema: runEventSchema } },
    },
    202: jsonResponse(startRunResponseSchema, "The run was accepted"),
    ...errorResponses(400, 401, 404, 409, 413, 415, 429),
  },
});

const getRun = createRoute({
  method: "get",
  path: "/runs/{id}",
  tags,
  summary: "A run's state, and its result once it ended",
  request: { params: runParamsSchema },
  responses: {
    200: jsonResponse(runResponseSchema, "The run"),
    ...errorResponses(400, 401, 404, 429),
  },
});

const runEvents = createRoute({
  method: "get",
  path: "/runs/{id}/events",
  tags,
  summary: "The run's events as SSE; resume with Last-Event-ID",
  description:
    "Every event has `id:` = its seq. Missed events are replayed from the durable log, then live ones follow. Keep-alives are comments. The stream ends with `event: end` (no id) carrying the run.",
  request: { params: runParamsSchema, query: runEventsQuerySchema },
  responses: {
    200: {
      description: "The event stream; each `data:` is one RunEvent",
      content: { "text/event-stream": { schema: runEventSchema } },
    },
    ...errorResponses(400, 401, 404, 429),
  },
});

const stopRun = createRoute({
  method: "post",
  path: "/runs/{id}/stop",
  tags,
  summary: "Ask the run to finish gracefully (a final turn); a queued run is cancelled",
  request: { params: runParamsSchema },
  responses: {
    202: jsonResponse(runResponseSchema, "The run"),
    ...errorResponses(400, 401, 404, 429),
  },
});

const abortRun = createRoute({
  method: "post",
  path: "/runs/{id}/abort",
  tags,
  summary: "End the run at once (the partial answer is kept, marked aborted)",
  request: { params: runParamsSchema },
  responses: {
    202: jsonResponse(runResponseSchema, "The run"),
    ...errorResponses(400, 401, 404, 429),
  },
});

/** A run as the API shows it (never its tenant). */
function runView(record: RunRecord) {
  const { tenantId: _tenant, ...rest } = record;
  return rest;
}

/** The cursor a client resumes after: `Last-Event-ID`, else `?after=`, else 0. */
function resumeCursor(header: string | undefined, after: string | undefined): number {
  const text = header ?? after;
  if (text === undefined || text === "") return 0;
  if (!/^\d{1,15}$/.test(text)) {
    throw new ApiError(
      400,
      "invalid_request",
      "Last-Event-ID must be the id of an event (a whole number)",
    );
  }
  return Number(text);
}

/** Run routes: start, state, events (SSE), stop, abort. */
export function runRoutes(deps: AppDeps, streams: StreamCounter) {
  return new OpenAPIHono<ServerEnv>({ defaultHook: validationHook })
    .openapi(startRun, async (c) => {
      const { id } = c.req.valid("param");
      const body = c.req.valid("json");
      const owner = c.get("owner");
      const streaming = EVENT_STREAM.test(c.req.header("accept") ?? "");
      // The stream's place is taken before the run starts: a 429 never leaves a run behind.
      if (streaming) takeStream(streams, owner.keyId);
      let record: RunRecord;
      try {
        record = await deps.runs.start({
          tenantId: owner.tenantId,
          sessionId: id,
          agent: body.agent,
          prompt: body.prompt,
          ...(body.images ? { images: body.images } : {}),
          ifBusy: body.ifBusy,
          ...(body.parentRunId !== undefined || body.originRunId !== undefined
            ? {
                ancestry: {
                  ...(body.parentRunId !== undefined ? { parentId: body.parentRunId } : {}),
                  ...(body.originRunId !== undefined ? { originId: body.originRunId } : {}),
                },
              }
            : {}),
        });
      } catch (error) {
        if (streaming) streams.release(owner.keyId);
        throw error;
      }
      c.header("Location", `/v1/runs/${record.id}`);
      if (streaming) return eventStream(c, deps, streams, record.id, 0) as never;
      return c.json(
        { runId: record.id, status: record.status, eventsUrl: `/v1/runs/${record.id}/events` },
        202,
      );
    })
    .openapi(getRun, async (c) => {
      const { id } = c.req.valid("param");
      return c.json(runView(await deps.runs.get(id, c.get("owner").tenantId)), 200);
    })
    .openapi(stopRun, async (c) => {
      const { id } = c.req.valid("param");
      return c.json(runView(await deps.runs.stop(id, c.get("owner").tenantId)), 202);
    })
    .openapi(abortRun, async (c) => {
      const { id } = c.req.valid("param");
      return c.json(runView(await deps.runs.abort(id, c.get("owner").tenantId)), 202);
    })
    .openapi(runEvents, async (c) => {
      const { id } = c.req.valid("param");
      const { after } = c.req.valid("query");
      const owner = c.get("owner");
      const afterSeq = resumeCursor(c.req.header("last-event-id"), after);
      await deps.runs.get(id, owner.tenantId);
      takeStream(streams, owner.keyId);
      return eventStream(c, deps, streams, id, afterSeq) as never;
    });
}

const EVENT_STREAM = /\btext\/event-stream\b/i;

/**
 * Takes one of the key's stream places.
 * @throws ApiError 429 when the key holds its limit
 */
function takeStream(streams: StreamCounter, keyId: string): void {
  if (!streams.acquire(keyId)) {
    throw new ApiError(
      429,
      "too_many_streams",
      `this key already holds ${streams.count(keyId)} event streams; close one first`,
    );
  }
}

/**
 * The run's events after `afterSeq` as SSE, until the run ends or the client leaves; gives
 * the key's stream place (taken by the caller) back at the end.
 */
function eventStream(
  c: Context<ServerEnv>,
  deps: AppDeps,
  streams: StreamCounter,
  runId: string,
  afterSeq: number,
): Response {
  const keyId = c.get("owner").keyId;
  const apiKey = c.get("apiKey");
  const closed = new AbortController();
  c.header("Cache-Control", "no-cache, no-transform");
  c.header("X-Accel-Buffering", "no");
  const writeThrough = sendEachWrite(c);
  return streamSSE(c, async (stream) => {
    stream.onAbort(() => closed.abort());
    // A key revoked here ends the stream at once; one revoked elsewhere at the next check.
    let revoked = false;
    const endRevoked = () => {
      revoked = true;
      closed.abort();
    };
    const forget = streams.track(keyId, endRevoked);
    const keyCheck = setInterval(() => {
      deps.keys.authenticate(apiKey).then(
        (owner) => {
          if (owner?.keyId !== keyId) endRevoked();
        },
        () => undefined,
      );
    }, deps.limits.keyCheckMs);
    try {
      const items = runEventStream(deps.log, runId, afterSeq, {
        keepAliveMs: deps.limits.keepAliveMs,
        signal: closed.signal,
      });
      for await (const item of items) {
        if (stream.aborted || revoked) break;
        if (item.kind === "event") {
          await stream.writeSSE({
            id: String(item.event.seq),
            event: item.event.type,
            data: JSON.stringify(item.event),
          });
        } else if (item.kind === "resync") {
          // No id: the cursor stays where the client is; the events it missed are gone.
          await stream.writeSSE({
            event: "resync",
            data: JSON.stringify({
              run: runView(item.record),
              missedFrom: item.missedFrom,
              missedThrough: item.missedThrough,
            }),
          });
        } else if (item.kind === "keep_alive") {
          await stream.write(": keep-alive\n\n");
        } else {
          await stream.writeSSE({ event: "end", data: JSON.stringify(runView(item.record)) });
        }
      }
      if (revoked && !stream.aborted) await stream.write(": the API key was revoked\n\n");
    } finally {
      clearInterval(keyCheck);
      forget();
      writeThrough.restore();
      streams.release(keyId);
    }
  });
}
