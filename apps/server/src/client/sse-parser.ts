import { StreamRunError } from "./stream-run-error.js";

/** One SSE message: its `event:` (default `message`), its joined `data:` lines, its `id:`. */
export interface SseMessage {
  event: string;
  data: string;
  /** The message's own `id:` field, when it had one. */
  id?: string;
}

/** How much an {@link SseParser} holds before it gives up. */
export interface SseLimits {
  /** The longest line, in UTF-16 code units, terminator excluded. */
  maxLineChars: number;
  /** The longest message's `data`, in UTF-16 code units. */
  maxMessageChars: number;
}

const LINE_END = /\r\n|\r|\n/g;

/**
 * An incremental parser of `text/event-stream` (the WHATWG HTML "event stream
 * interpretation"): lines end with CRLF, LF or CR; `:` lines are comments; `data:` lines join
 * with `\n`; a blank line dispatches a message that has data. `retry:` and unknown fields are
 * ignored. It never holds more than the limits: a longer line or message throws
 * `StreamRunError` `sse_too_large`. Feed it decoded text (a `TextDecoder` strips the BOM).
 */
export class SseParser {
  #partial = "";
  #skipLineFeed = false;
  #event = "";
  #data: string[] = [];
  #dataChars = 0;
  #id: string | undefined;

  constructor(private readonly limits: SseLimits) {}

  /** Parses the next piece of the stream and returns the messages it completed. */
  push(text: string): SseMessage[] {
    const messages: SseMessage[] = [];
    let start = 0;
    if (this.#skipLineFeed && text.startsWith("\n")) start = 1;
    this.#skipLineFeed = false;
    LINE_END.lastIndex = start;
    for (let match = LINE_END.exec(text); match; match = LINE_END.exec(text)) {
      // A CR at the very end may be the first half of a CRLF split across pieces.
      if (match[0] === "\r" && match.index === text.length - 1) this.#skipLineFeed = true;
      const line = this.#partial + text.slice(start, match.index);
      this.#partial = "";
      this.#checkLine(line.length);
      this.#line(line, messages);
      start = LINE_END.lastIndex;
    }
    this.#partial += text.slice(start);
    this.#checkLine(this.#partial.length);
    return messages;
  }

  #checkLine(length: number): void {
    if (length > this.limits.maxLineChars) {
      throw new StreamRunError(
        "sse_too_large",
        `an event-stream line is longer than ${this.limits.maxLineChars} characters`,
      );
    }
  }

  #line(line: string, messages: SseMessage[]): void {
    if (line === "") {
      if (this.#data.length > 0) {
        const message: SseMessage = {
          event: this.#event || "message",
          data: this.#data.join("\n"),
        };
        if (this.#id !== undefined) message.id = this.#id;
        messages.push(message);
      }
      this.#event = "";
      this.#data = [];
      this.#dataChars = 0;
      this.#id = undefined;
      return;
    }
    if (line.startsWith(":")) return;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") {
      this.#dataChars += value.length + 1;
      if (this.#dataChars > this.limits.maxMessageChars) {
        throw new StreamRunError(
          "sse_too_large",
          `an event-stream message is longer than ${this.limits.maxMessageChars} characters`,
        );
      }
      this.#data.push(value);
    } else if (field === "event") {
      this.#event = value;
    } else if (field === "id" && !value.includes("\0")) {
      this.#id = value;
    }
  }
}
