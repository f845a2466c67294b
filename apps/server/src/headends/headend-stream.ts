import type { Context } from "hono";
import { type SSEStreamingApi, streamSSE } from "hono/streaming";
import { ApiError } from "../errors/index.js";
import { sendEachWrite } from "../http/send-each-write.js";
import type { ServerEnv } from "../http/server-env.js";
import type { StreamCounter } from "../http/stream-counter.js";

/**
 * Takes one of the key's stream places (headend streams count against the same limit as
 * the native run streams).
 * @throws ApiError 429 when the key holds its limit
 */
export function takeStreamPlace(streams: StreamCounter, keyId: string): void {
  if (!streams.acquire(keyId)) {
    throw new ApiError(
      429,
      "too_many_streams",
      `this key already holds ${streams.count(keyId)} event streams; close one first`,
    );
  }
}

/**
 * Answers with an SSE stream written by `write`, whose place the caller took; gives the
 * place back when the stream ends. `signal` aborts when the client leaves.
 */
export function headendStream(
  c: Context<ServerEnv>,
  streams: StreamCounter,
  write: (stream: SSEStreamingApi, signal: AbortSignal) => Promise<void>,
): Response {
  const keyId = c.get("owner").keyId;
  const left = new AbortController();
  c.header("Cache-Control", "no-cache, no-transform");
  c.header("X-Accel-Buffering", "no");
  const writeThrough = sendEachWrite(c);
  return streamSSE(c, async (stream) => {
    stream.onAbort(() => left.abort());
    try {
      await write(stream, left.signal);
    } finally {
      left.abort();
      writeThrough.restore();
      streams.release(keyId);
    }
  });
}
