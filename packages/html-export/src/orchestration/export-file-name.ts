import { safeFileName } from "../safe-file-name.js";

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
  return `${safeFileName(sessionId)}.html`;
}
