/**
 * True when `actual` has every field of `expected` with a matching value: objects match as
 * subsets, arrays element by element (same length), anything else exactly.
 */
export function matchesSubset(expected: unknown, actual: unknown): boolean {
  if (Array.isArray(expected)) {
    return (
      Array.isArray(actual) &&
      actual.length === expected.length &&
      expected.every((item, i) => matchesSubset(item, actual[i]))
    );
  }
  if (typeof expected !== "object" || expected === null) {
    return JSON.stringify(expected) === JSON.stringify(actual);
  }
  if (typeof actual !== "object" || actual === null) return false;
  return Object.entries(expected).every(([key, value]) =>
    matchesSubset(value, (actual as Record<string, unknown>)[key]),
  );
}
