import type { IncomingMessage } from "node:http";
import type { Context } from "hono";

/** What the Node adapter hands a request: the message it reads the request from. */
interface NodeBindings {
  incoming?: IncomingMessage;
}

/** Why a body was not read: too large, or the client went away before it ended. */
export type BodyFailure = "too_large" | "aborted";

/**
 * Reads a request's body as text, at most `maxBytes` of it, and leaves it in hono's body
 * cache, where `c.req.text()` and `c.req.json()` (the routes' validators) find it.
 *
 * On Node it reads the socket's message itself: going through the web `Request` the adapter
 * builds on demand (a `Request`, a web stream over the message, a reader) took about 0.4 ms of
 * every request's path on this server's benchmark, before any route ran. Elsewhere
 * (`app.request()` in tests) it reads the web request's stream.
 * @returns the text, or why there is none: over the limit by `Content-Length` before anything
 * is read, or by the bytes that arrived (reading stops there); or the client left mid-body
 */
export async function readBodyText(
  c: Context,
  maxBytes: number,
): Promise<{ text: string } | { failure: BodyFailure }> {
  if (declaredOver(c, maxBytes)) return { failure: "too_large" };
  const incoming = (c.env as NodeBindings | undefined)?.incoming;
  const read = incoming
    ? await readMessage(incoming, maxBytes)
    : await readWeb(c.req.raw, maxBytes);
  if ("failure" in read) return read;
  const text = Buffer.concat(read.chunks).toString("utf8");
  (c.req.bodyCache as { text?: Promise<string> }).text = Promise.resolve(text);
  return { text };
}

/** Whether the request's `Content-Length` says its body is over `maxBytes`. */
export function declaredOver(c: Context, maxBytes: number): boolean {
  const length = c.req.header("content-length");
  return length !== undefined && /^\d+$/.test(length) && Number(length) > maxBytes;
}

type ReadChunks = { chunks: Uint8Array[] } | { failure: BodyFailure };

/** A Node request message's bytes, stopping once they are over `maxBytes`. */
function readMessage(incoming: IncomingMessage, maxBytes: number): Promise<ReadChunks> {
  if (incoming.complete && incoming.readableEnded) return Promise.resolve({ chunks: [] });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (result: ReadChunks) => {
      incoming.off("data", onData);
      incoming.off("end", onEnd);
      incoming.off("close", onClose);
      incoming.off("error", onClose);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        // Nothing more is read; Node closes the connection after the answer.
        incoming.pause();
        done({ failure: "too_large" });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => done({ chunks });
    const onClose = () => done(incoming.complete ? { chunks } : { failure: "aborted" });
    incoming.on("data", onData);
    incoming.on("end", onEnd);
    incoming.on("close", onClose);
    incoming.on("error", onClose);
  });
}

/** A web request's bytes, stopping once they are over `maxBytes`. */
async function readWeb(request: Request, maxBytes: number): Promise<ReadChunks> {
  if (!request.body) return { chunks: [] };
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { chunks };
      size += value.length;
      if (size > maxBytes) {
        await reader.cancel().catch(() => undefined);
        return { failure: "too_large" };
      }
      chunks.push(value);
    }
  } catch {
    return { failure: "aborted" };
  }
}
