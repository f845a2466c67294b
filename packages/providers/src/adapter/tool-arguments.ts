/**
 * Parses streamed tool-call arguments; an empty string means no arguments.
 *
 * @returns the arguments object, or `undefined` when the text is not a JSON object.
 */
export function parseToolArguments(text: string): Record<string, unknown> | undefined {
  if (text.trim() === "") return {};
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
