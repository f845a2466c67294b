import { REDACTED } from "@arbor/orchestration";

/**
 * Shorter values are not treated as secrets: replacing every "abc" in a message would hide
 * more than it protects, and real API keys are far longer.
 */
export const MIN_SECRET_LENGTH = 8;

/**
 * Replaces every verbatim occurrence of the known secrets in a text with `[redacted]`,
 * longest first (so a key that contains another is hidden whole), and nothing else.
 *
 * For what the model wrote (the streamed answer): unlike `redactSecrets` of
 * `@arbor/providers`, it leaves key-shaped examples (`sk-…`, `Bearer …`) in an answer alone.
 */
export function redactKnownSecrets(text: string, knownSecrets: Iterable<string>): string {
  const secrets = [...new Set(knownSecrets)]
    .filter((secret) => secret.length >= MIN_SECRET_LENGTH)
    .sort((a, b) => b.length - a.length);
  let result = text;
  for (const secret of secrets) result = result.split(secret).join(REDACTED);
  return result;
}
