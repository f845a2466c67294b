/** Names Windows reserves for devices, with any extension (`CON`, `nul.txt`, `COM1`, …). */
const RESERVED_NAME = /^(?:con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(?:\..*)?$/iu;

/** Characters kept as they are: letters, digits, `.`, `_`, `-`. Anything else becomes `_`. */
const UNSAFE = /[^\p{L}\p{N}._-]/gu;

/** The longest stem produced, in UTF-8 bytes (the `.html` comes on top). */
const MAX_STEM_BYTES = 120;

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
 * The file name a session's HTML export gets in its folder: the session id made into one
 * plain name, never a path (separators, `..`, control and other characters outside letters,
 * digits, `.`, `_`, `-` become `_`; no leading or trailing dots; Windows device names get a
 * `_` in front; at most 120 bytes) plus `.html`. It is the rule the CLI uses for
 * `arbor export`, so a child-session card's link finds the file exported next to it.
 *
 * @example
 * ```ts
 * childExportFileName("../../etc/passwd"); // "_etc_passwd.html"
 * ```
 */
export function childExportFileName(sessionId: string): string {
  let name = sessionId
    .normalize("NFC")
    .replace(UNSAFE, "_")
    .replace(/\.{2,}/gu, "_")
    .replace(/_+/gu, "_");
  name = name.replace(/^\.+|\.+$/gu, "");
  if (RESERVED_NAME.test(name)) name = `_${name}`;
  name = truncateUtf8(name, MAX_STEM_BYTES).replace(/\.+$/u, "");
  return `${/^_*$/u.test(name) ? "session" : name}.html`;
}
