/**
 * How a Gemini thought signature travels on a thinking part: its `signature` is
 * `{"type":"gemini","thoughtSignature":…}`. On the way back the signature goes on the
 * first text or function call part after the thinking part in the same message (where
 * Gemini put it: the first function call of a step), or, when nothing follows, on the last
 * part before it (a signature on the closing text part).
 */
const PREFIX = '{"type":"gemini",';

/** The signature a thinking part carries for a Gemini thought signature. */
export function encodeGeminiSignature(thoughtSignature: string): string {
  return JSON.stringify({ type: "gemini", thoughtSignature });
}

/** The Gemini thought signature a thinking signature holds, or `undefined`. */
export function decodeGeminiSignature(signature: string | undefined): string | undefined {
  if (signature === undefined || !signature.startsWith(PREFIX)) return undefined;
  try {
    const value = JSON.parse(signature) as { thoughtSignature?: unknown };
    return typeof value.thoughtSignature === "string" && value.thoughtSignature !== ""
      ? value.thoughtSignature
      : undefined;
  } catch {
    return undefined;
  }
}

/** True for signatures another adapter wrapped (Responses reasoning, Gemini signatures). */
export function isWrappedSignature(signature: string | undefined): boolean {
  return signature?.startsWith('{"type":') ?? false;
}
