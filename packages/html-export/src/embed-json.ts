/**
 * Serializes data as JSON that is safe to place inside an inline `<script>` element:
 * `<`, `>`, `&`, U+2028 and U+2029 are written as `\u` escapes, so message content can
 * neither close the script element nor break the JavaScript parser.
 */
export function embedJson(data: unknown): string {
  return JSON.stringify(data).replace(/[<>&\u2028\u2029]/g, (ch) => {
    return `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`;
  });
}
