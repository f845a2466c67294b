/** One SSE message as a client sees it; comments are kept apart. */
export interface SseMessage {
  id?: string;
  event?: string;
  data?: string;
}

/** What an SSE reader collected. */
export interface SseReading {
  messages: SseMessage[];
  comments: string[];
  /** Every raw block, in order (to check that comments carry no `id:`). */
  blocks: string[];
}

/**
 * Reads an SSE response until it ends, `stopWhen` says so (then the connection is dropped,
 * as a client that goes away), or `signal` aborts.
 */
export async function readSse(
  response: Response,
  options: { stopWhen?: (reading: SseReading) => boolean } = {},
): Promise<SseReading> {
  const reading: SseReading = { messages: [], comments: [], blocks: [] };
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let at = buffer.indexOf("\n\n");
    while (at >= 0) {
      const block = buffer.slice(0, at);
      buffer = buffer.slice(at + 2);
      reading.blocks.push(block);
      const message: SseMessage = {};
      let isComment = true;
      for (const line of block.split("\n")) {
        if (line.startsWith(":")) continue;
        isComment = false;
        const colon = line.indexOf(":");
        const field = line.slice(0, colon);
        const value = line.slice(colon + 1).replace(/^ /, "");
        if (field === "id" || field === "event") message[field] = value;
        else if (field === "data")
          message.data = message.data === undefined ? value : `${message.data}\n${value}`;
      }
      if (isComment) reading.comments.push(block);
      else reading.messages.push(message);
      if (options.stopWhen?.(reading)) {
        await reader.cancel();
        return reading;
      }
      at = buffer.indexOf("\n\n");
    }
  }
  return reading;
}

/** The ids of the messages that have one, as numbers. */
export function idsOf(reading: SseReading): number[] {
  return reading.messages.filter((m) => m.id !== undefined).map((m) => Number(m.id));
}
