import { z } from "zod";
import { type ServerRunEvent, serverRunEventSchema } from "../runs/server-run-event.js";
import { runResponseSchema } from "../schemas/run-schemas.js";
import { type SseLimits, type SseMessage, SseParser } from "./sse-parser.js";
import { StreamRunError } from "./stream-run-error.js";

/** A run as the API shows it: the `end` message's data, `GET /v1/runs/:id`'s body. */
export type RunView = z.infer<typeof runResponseSchema>;

/**
 * What {@link RunStream} yields: an event (each `seq` once, in order), or a `resync` saying
 * the events `missedFrom`…`missedThrough` were removed by the log's retention before this
 * client read them (the stream goes on with the events still kept).
 */
export type StreamRunItem =
  | { kind: "event"; event: ServerRunEvent }
  | { kind: "resync"; run: RunView; missedFrom: number; missedThrough: number };

/** Options of `streamRun`. */
export interface StreamRunOptions {
  /** Start after this `seq` (the last event the caller already has); default 0, the start. */
  afterSeq?: number;
  /** Ends the stream (it throws `StreamRunError` `aborted`, the reason as its `cause`). */
  signal?: AbortSignal;
  /** Reconnects in a row that may fail before the stream gives up; default 5. */
  retries?: number;
  /** The first wait before a reconnect, doubled each failure up to 5 s; default 250 ms. */
  retryDelayMs?: number;
  /** The longest line of the stream, in characters; default 16 MiB. */
  maxLineChars?: number;
  /** The longest message's data, in characters; default 16 MiB. */
  maxMessageChars?: number;
}

/**
 * A run's events as an async iterable (read it once), and the run's final record.
 * Iteration ends after the server's `end` message; it throws a {@link StreamRunError} for
 * anything else.
 */
export interface RunStream extends AsyncIterable<StreamRunItem> {
  /**
   * The run as the `end` message gives it, once iteration reached it. Rejects with the error
   * iteration threw, or `StreamRunError` `stream_closed` when iteration stopped before the end.
   */
  readonly result: Promise<RunView>;
}

/** Where and how `streamRun` connects (the typed client's own settings). */
export interface StreamRunConnection {
  baseUrl: string;
  apiKey: string;
  fetch?: typeof fetch;
}

const MIB = 1024 * 1024;
const MAX_ERROR_BODY = 64 * 1024;
const RETRYABLE = new Set([429, 500, 502, 503, 504]);

const resyncSchema = z.object({
  run: runResponseSchema,
  missedFrom: z.number().int().positive(),
  missedThrough: z.number().int().nonnegative(),
});

/**
 * Reads a run's events over `GET /v1/runs/:id/events`, parsed with `serverRunEventSchema`,
 * reconnecting with `Last-Event-ID` (the last `seq` yielded) when the connection drops before
 * the `end` message, so no event is yielded twice or skipped.
 */
export function streamRun(
  connection: StreamRunConnection,
  runId: string,
  options: StreamRunOptions = {},
): RunStream {
  let resolve!: (run: RunView) => void;
  let reject!: (error: unknown) => void;
  const result = new Promise<RunView>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // A caller that only iterates must not get an unhandled rejection.
  result.catch(() => undefined);
  let settled = false;
  const settle = {
    resolve: (run: RunView) => {
      settled = true;
      resolve(run);
    },
    reject: (error: unknown) => {
      if (settled) return;
      settled = true;
      reject(error);
    },
  };
  const items = read(connection, runId, options, settle);
  return {
    result,
    [Symbol.asyncIterator]: () => items,
  };
}

async function* read(
  connection: StreamRunConnection,
  runId: string,
  options: StreamRunOptions,
  settle: { resolve(run: RunView): void; reject(error: unknown): void },
): AsyncGenerator<StreamRunItem, void, undefined> {
  const doFetch = connection.fetch ?? fetch;
  const url = `${connection.baseUrl.replace(/\/+$/, "")}/v1/runs/${encodeURIComponent(runId)}/events`;
  const limits: SseLimits = {
    maxLineChars: options.maxLineChars ?? 16 * MIB,
    maxMessageChars: options.maxMessageChars ?? 16 * MIB,
  };
  const retries = options.retries ?? 5;
  const baseDelay = options.retryDelayMs ?? 250;
  const signal = options.signal;
  let lastSeq = options.afterSeq ?? 0;
  let failures = 0;
  try {
    for (;;) {
      throwIfAborted(signal, runId);
      let lastError: unknown;
      const response = await doFetch(url, {
        headers: {
          authorization: `Bearer ${connection.apiKey}`,
          accept: "text/event-stream",
          ...(lastSeq > 0 ? { "last-event-id": String(lastSeq) } : {}),
        },
        ...(signal ? { signal } : {}),
      }).catch((error: unknown) => {
        throwIfAborted(signal, runId);
        lastError = error;
        return undefined;
      });
      if (response && !response.ok) {
        const error = await httpError(response, runId);
        if (!RETRYABLE.has(response.status)) throw error;
        lastError = error;
      } else if (response) {
        const type = response.headers.get("content-type") ?? "";
        if (!/^text\/event-stream\b/i.test(type) || !response.body) {
          await response.body?.cancel().catch(() => undefined);
          throw new StreamRunError(
            "not_event_stream",
            `the events of run ${runId} answered ${response.status} with ${type || "no content type"}, not text/event-stream`,
            { status: response.status },
          );
        }
        const parser = new SseParser(limits);
        const decoder = new TextDecoder();
        const reader = response.body.getReader();
        try {
          for (;;) {
            let chunk: Awaited<ReturnType<typeof reader.read>>;
            try {
              chunk = await reader.read();
            } catch (error) {
              throwIfAborted(signal, runId);
              lastError = error;
              break;
            }
            if (chunk.done) {
              lastError = new Error("the server closed the stream before its end message");
              break;
            }
            for (const message of parser.push(decoder.decode(chunk.value, { stream: true }))) {
              // Nothing more once the caller aborted, even what this chunk still holds.
              throwIfAborted(signal, runId);
              if (message.event === "end") {
                settle.resolve(parseMessage(message, runResponseSchema, runId));
                return;
              }
              if (message.event === "resync") {
                const resync = parseMessage(message, resyncSchema, runId);
                lastSeq = Math.max(lastSeq, resync.missedThrough);
                failures = 0;
                yield { kind: "resync", ...resync };
                continue;
              }
              const event = parseEvent(message, runId, lastSeq);
              // A server resending what this client has (it never should) is not yielded twice.
              if (event.seq <= lastSeq) continue;
              if (event.seq !== lastSeq + 1) {
                throw new StreamRunError(
                  "sequence_gap",
                  `run ${runId}'s stream went from event ${lastSeq} to ${event.seq}`,
                  { seq: event.seq },
                );
              }
              lastSeq = event.seq;
              failures = 0;
              yield { kind: "event", event };
            }
          }
        } finally {
          reader.cancel().catch(() => undefined);
        }
      }
      failures += 1;
      if (failures > retries) {
        throw new StreamRunError(
          "connection_lost",
          `run ${runId}'s stream was lost after event ${lastSeq}; ${retries} reconnects failed`,
          { cause: lastError },
        );
      }
      await sleep(Math.min(baseDelay * 2 ** (failures - 1), 5000), signal, runId);
    }
  } catch (error) {
    settle.reject(error);
    throw error;
  } finally {
    settle.reject(
      new StreamRunError("stream_closed", `run ${runId}'s stream was left before its end`),
    );
  }
}

function parseEvent(message: SseMessage, runId: string, lastSeq: number): ServerRunEvent {
  const seq =
    message.id !== undefined && /^\d{1,15}$/.test(message.id) ? Number(message.id) : undefined;
  const which = seq === undefined ? `the event after ${lastSeq}` : `event ${seq}`;
  let json: unknown;
  try {
    json = JSON.parse(message.data);
  } catch (error) {
    throw new StreamRunError("invalid_event", `${which} of run ${runId} is not JSON`, {
      ...(seq === undefined ? {} : { seq }),
      cause: error,
    });
  }
  const parsed = serverRunEventSchema.safeParse(json);
  if (!parsed.success) {
    throw new StreamRunError(
      "invalid_event",
      `${which} of run ${runId} is not a run event: ${z.prettifyError(parsed.error)}`,
      { ...(seq === undefined ? {} : { seq }), cause: parsed.error },
    );
  }
  return parsed.data as ServerRunEvent;
}

function parseMessage<T>(message: SseMessage, schema: z.ZodType<T>, runId: string): T {
  let json: unknown;
  try {
    json = JSON.parse(message.data);
  } catch (error) {
    throw new StreamRunError(
      "invalid_message",
      `the ${message.event} message of run ${runId} is not JSON`,
      { cause: error },
    );
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    throw new StreamRunError(
      "invalid_message",
      `the ${message.event} message of run ${runId} is not what the server sends: ${z.prettifyError(parsed.error)}`,
      { cause: parsed.error },
    );
  }
  return parsed.data;
}

/** The error of an answer that is not 2xx, with the server's `{ error: { code, message } }`. */
async function httpError(response: Response, runId: string): Promise<StreamRunError> {
  let text = "";
  try {
    text = (await readBounded(response, MAX_ERROR_BODY)).trim();
  } catch {
    // The body is only a detail.
  }
  let serverCode: string | undefined;
  let detail = text.slice(0, 200);
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
    if (typeof body.error?.code === "string") serverCode = body.error.code;
    if (typeof body.error?.message === "string") detail = body.error.message;
  } catch {
    // Not the server's error body: the text is shown as it is.
  }
  return new StreamRunError(
    "http_error",
    `the events of run ${runId} answered ${response.status}${serverCode ? ` ${serverCode}` : ""}${detail ? `: ${detail}` : ""}`,
    { status: response.status, ...(serverCode ? { serverCode } : {}) },
  );
}

async function readBounded(response: Response, max: number): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    while (text.length < max) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
  return text.slice(0, max);
}

function throwIfAborted(signal: AbortSignal | undefined, runId: string): void {
  if (signal?.aborted) {
    throw new StreamRunError("aborted", `reading run ${runId}'s stream was aborted`, {
      cause: signal.reason,
    });
  }
}

function sleep(ms: number, signal: AbortSignal | undefined, runId: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(
        new StreamRunError("aborted", `reading run ${runId}'s stream was aborted`, {
          cause: signal?.reason,
        }),
      );
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
  });
}
