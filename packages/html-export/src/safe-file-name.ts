/** Names Windows reserves for devices, with any extension (`CON`, `nul.txt`, `COM1`, …). */
const RESERVED_NAME = /^(?:con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(?:\..*)?$/iu;

/** Characters kept as they are: letters, digits, `.`, `_`, `-`. Anything else becomes `_`. */
const UNSAFE = /[^\p{L}\p{N}._-]/gu;

/** The longest name produced, in UTF-8 bytes: well under the 255 of common file systems. */
export const MAX_FILE_NAME_BYTES = 120;

function truncateUtf8(text: string, maxBytes: number): string {
  const encoder = new TextEncoder();
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    bytes += encoder.encode(char).length;
    if (bytes > maxBytes) break;
    end += char.length;
  }
  return text.slice(0, end);
}

/**
 * Turns text taken from a session (an id, a title) into one plain file name, never a path:
 * separators, runs of dots (`..`), NUL, control characters and every other character outside letters,
 * digits, `.`, `_` and `-` become `_`; leading and trailing dots go (no hidden files, no
 * `.` or `..`); Windows device names (`CON`, `NUL`, `COM1`, …) get a `_` in front; the name
 * is cut to {@link MAX_FILE_NAME_BYTES} bytes. Nothing left gives `fallback`.
 *
 * @example
 * ```ts
 * safeFileName("../x"); // "_x"
 * safeFileName("CON"); // "_CON"
 * ```
 */
export function safeFileName(raw: string, fallback = "session"): string {
  let name = raw
    .normalize("NFC")
    .replace(UNSAFE, "_")
    .replace(/\.{2,}/gu, "_")
    .replace(/_+/gu, "_");
  name = name.replace(/^\.+|\.+$/gu, "");
  if (RESERVED_NAME.test(name)) name = `_${name}`;
  name = truncateUtf8(name, MAX_FILE_NAME_BYTES).replace(/\.+$/u, "");
  return /^_*$/u.test(name) ? fallback : name;
}
