/** The outcome of parsing one line of JSON: a value, or why it is not one. */
export type JsonParseResult = { ok: true; value: unknown } | { ok: false; error: string };

/**
 * Parses external JSON without throwing: every caller gets a typed result to act on
 * instead of a `SyntaxError` from deep inside a loop.
 */
export function safeParseJson(text: string): JsonParseResult {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

/** Tells whether a value is a plain JSON object (not an array, not null). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
