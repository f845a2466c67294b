import { describe, expect, it } from "vitest";
import { SseParser } from "./sse-parser.js";
import { StreamRunError } from "./stream-run-error.js";

const limits = { maxLineChars: 64, maxMessageChars: 128 };

/** Feeds the text in pieces of `size` and collects every message. */
function parseIn(text: string, size: number, parser = new SseParser(limits)) {
  const messages = [];
  for (let at = 0; at < text.length; at += size)
    messages.push(...parser.push(text.slice(at, at + size)));
  return messages;
}

describe("SseParser", () => {
  it("parses ids, types and multi-line data, skipping comments, whatever the pieces", () => {
    const text =
      ': keep-alive\n\nid: 1\nevent: text_delta\ndata: {"a":1}\n\nevent: end\ndata: one\ndata:two\n\n';
    for (const size of [1, 2, 3, 7, text.length]) {
      expect(parseIn(text, size)).toEqual([
        { id: "1", event: "text_delta", data: '{"a":1}' },
        { event: "end", data: "one\ntwo" },
      ]);
    }
  });

  it("takes CRLF, CR and LF line ends, also a CRLF split across pieces", () => {
    const text = "id: 2\r\ndata: x\r\n\r\ndata: y\r\rdata: z\n\n";
    const expected = [
      { id: "2", event: "message", data: "x" },
      { event: "message", data: "y" },
      { event: "message", data: "z" },
    ];
    for (const size of [1, 2, 5, text.length]) expect(parseIn(text, size)).toEqual(expected);
  });

  it("drops a message without data, an id with NUL, unknown fields and a message cut off", () => {
    const parser = new SseParser(limits);
    expect(parser.push("event: x\nretry: 10\nfoo: bar\n\nid: a\0b\ndata\n\ndata: cut")).toEqual([
      { event: "message", data: "" },
    ]);
  });

  it("refuses a line over the limit before it ends, and a message over the limit", () => {
    const parser = new SseParser(limits);
    expect(() => parser.push(`data: ${"x".repeat(40)}`)).not.toThrow();
    const error = (() => {
      try {
        parser.push("x".repeat(40));
      } catch (e) {
        return e;
      }
    })();
    expect(StreamRunError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "sse_too_large" });
    const lines = `${"data: 0123456789012345678901234567890123456789\n".repeat(4)}\n`;
    expect(() => new SseParser(limits).push(lines)).toThrow(/message is longer than 128/);
  });
});
