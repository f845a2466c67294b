import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { messageEntrySchema } from "./entries.js";
import { validateEntry } from "./session-log.js";

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

  it("returns the very object it was given, so key order and unknown fields survive", () => {
    const entry = { ...base, message: { role: "user", content: "hi", extra: 1 }, more: true };
    expect(validateEntry(entry)).toBe(entry);
  });
});
