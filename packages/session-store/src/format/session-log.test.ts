import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { messageEntrySchema } from "./entries.js";
import { materializeRecord, parseSessionLog, validateEntry } from "./session-log.js";

const base = { type: "message", id: "m", parentId: null, timestamp: "2026-01-01T00:00:00.000Z" };

const messageArb = fc.oneof(
  fc.anything(),
  fc.record(
    {
      role: fc.oneof(fc.constantFrom("user", "assistant", "toolResult", ""), fc.anything()),
      content: fc.oneof(
        fc.string(),
        fc.array(
          fc.oneof(fc.record({ type: fc.oneof(fc.string(), fc.anything()) }), fc.anything()),
        ),
        fc.anything(),
      ),
      timestamp: fc.oneof(fc.integer(), fc.anything()),
    },
    { requiredKeys: [] },
  ),
);

describe("validateEntry on message lines", () => {
  it("accepts exactly what the message entry schema accepts", () => {
    fc.assert(
      fc.property(messageArb, (message) => {
        const entry = { ...base, message };
        const valid = typeof validateEntry(entry) !== "string";
        expect(valid).toBe(messageEntrySchema.safeParse(entry).success);
      }),
      { numRuns: 2000 },
    );
  });

  it("rejects a message timestamp that is not a finite number, as the schema does", () => {
    for (const timestamp of [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY, Number.NaN]) {
      const entry = { ...base, message: { role: "user", timestamp } };
      expect(validateEntry(entry)).toEqual(expect.stringContaining("message.timestamp"));
      expect(messageEntrySchema.safeParse(entry).success).toBe(false);
    }
  });

  it("returns the very object it was given, so key order and unknown fields survive", () => {
    const entry = { ...base, message: { role: "user", content: "hi", extra: 1 }, more: true };
    expect(validateEntry(entry)).toBe(entry);
  });
});

describe("parseSessionLog decoding", () => {
  const header = '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z"}';
  const textArb = fc.oneof(
    fc.string(),
    fc.string({ unit: "grapheme" }),
    fc.string({ unit: "binary" }),
    fc.string({ minLength: 16_500, maxLength: 17_000 }), // long enough to be read lazily
    fc.string({ unit: "grapheme", minLength: 6000, maxLength: 7000 }),
  );

  it("reads every text and id back exactly, ASCII or not, short line or long", () => {
    const lineArb = fc.record({
      text: textArb,
      // Ids and roles of long lines are read from the line's first bytes, unparsed.
      name: fc.oneof(fc.constant(""), fc.string({ unit: "grapheme", maxLength: 4 })),
    });
    fc.assert(
      fc.property(fc.array(lineArb, { minLength: 1, maxLength: 6 }), (specs) => {
        const texts = specs.map((spec) => spec.text);
        const ids = specs.map((spec, i) => `m${i}${spec.name}`);
        const lines = specs.map((spec, i) =>
          JSON.stringify({
            ...base,
            id: ids[i],
            parentId: i === 0 ? null : ids[i - 1],
            message: { role: `user${spec.name}`, content: spec.text },
          }),
        );
        const bytes = Buffer.from(`${[header, ...lines].join("\n")}\n`, "utf8");
        const log = parseSessionLog(bytes, "decode.jsonl", () => "unused");
        expect(log.problems).toEqual([]);
        expect(log.records.map((record) => [record.id, record.parentId])).toEqual(
          ids.map((id, i) => [id, i === 0 ? null : ids[i - 1]]),
        );
        for (const [i, record] of log.records.entries()) {
          if (record.role !== undefined) expect(record.role).toBe(`user${specs[i]?.name}`);
        }
        const contents = log.records.map((record) => {
          const entry = materializeRecord(record);
          return typeof entry === "string"
            ? entry
            : (entry as { message: { content: unknown } }).message.content;
        });
        expect(contents).toEqual(texts);
      }),
      { numRuns: 300 },
    );
  });
});

describe("parseSessionLog over text in pieces", () => {
  const header = '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z"}';
  /** What a parse tells, comparable across the forms of one content. */
  const summary = (content: Parameters<typeof parseSessionLog>[0]) => {
    const log = parseSessionLog(content, "pieces.jsonl", () => "unused");
    return {
      records: log.records.map((record) => {
        const entry = materializeRecord(record);
        return [record.id, record.parentId, record.line, entry];
      }),
      problems: log.problems,
      tornTail: log.tornTail && {
        offset: log.tornTail.offset,
        bytes: Buffer.from(log.tornTail.bytes).toString("utf8"),
      },
      needsNewline: log.needsNewline,
    };
  };

  it("reads what the same text reads whole, wherever the pieces are cut", () => {
    const lineArb = fc.oneof(
      fc.string({ unit: "grapheme", maxLength: 30 }),
      fc.string({ unit: "grapheme", minLength: 600, maxLength: 900 }),
      fc.string({ minLength: 16_500, maxLength: 17_000 }), // long enough to be read lazily
    );
    fc.assert(
      fc.property(
        fc.array(lineArb, { minLength: 1, maxLength: 6 }),
        fc.constantFrom("whole", "torn", "no newline", "blank", "broken"),
        fc.array(fc.nat(), { maxLength: 5 }),
        fc.boolean(),
        (texts, ending, cuts, atLineEnds) => {
          const lines = texts.map((text, i) =>
            JSON.stringify({
              ...base,
              id: `m${i}`,
              parentId: i === 0 ? null : `m${i - 1}`,
              message: { role: "user", content: text },
            }),
          );
          if (ending === "blank") lines.splice(1, 0, "   ");
          if (ending === "broken") lines.splice(1, 0, '{"type":"message",');
          let whole = `${[header, ...lines].join("\n")}\n`;
          if (ending === "torn") whole += '{"type":"message","id":"x"';
          if (ending === "no newline") whole = whole.slice(0, -1);
          // Pieces cut at line ends (as a database's chunks are) or anywhere.
          const ends = [...whole.matchAll(/\n/g)].map((m) => (m.index ?? 0) + 1);
          const points = atLineEnds
            ? cuts.map((c) => ends[c % ends.length] as number)
            : cuts
                .map((c) => c % (whole.length + 1))
                // Pieces are decoded text: none ends inside a character's surrogate pair.
                .map((c) => (/[\uDC00-\uDFFF]/.test(whole.charAt(c)) ? c + 1 : c));
          const sorted = [...new Set([0, ...points, whole.length])].sort((a, b) => a - b);
          const pieces = sorted.slice(1).map((end, i) => whole.slice(sorted[i], end));
          expect(summary(pieces)).toEqual(summary(whole));
        },
      ),
      { numRuns: 400 },
    );
  });
});
