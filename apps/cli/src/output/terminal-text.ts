/**
 * Characters a terminal acts on instead of showing: C0 controls (ESC, BEL, backspace,
 * carriage return, …), DEL, C1 controls (U+0080–U+009F, e.g. U+009B, a one-character CSI),
 * bidirectional overrides and isolates, and the Unicode line and paragraph separators.
 */
const CONTROL_CHARACTERS =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;

/** How {@link terminalSafe} treats line breaks and tabs. */
export interface TerminalTextOptions {
  /**
   * Keep `\n` (and `\r\n`, turned into `\n`) and `\t` as they are, for text laid out over
   * several lines. Default false: they are shown as `\n` and `\t`, for one-line fields.
   */
  multiline?: boolean;
}

const NAMED: Record<string, string> = { "\n": "\\n", "\t": "\\t", "\r": "\\r", "\b": "\\b" };

function visible(char: string): string {
  const named = NAMED[char];
  if (named !== undefined) return named;
  const code = char.codePointAt(0) ?? 0;
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, "0")}`
    : `\\u${code.toString(16).padStart(4, "0")}`;
}

/**
 * Makes text from a session (titles, messages, ids, paths, error messages quoting them)
 * safe to print: every character a terminal would act on is shown as an escape instead
 * (ESC as `\x1b`, U+009B as `\x9b`, U+202E as `\u202e`), so stored text can neither
 * write the clipboard (OSC 52), retitle the window, clear the screen, overwrite a line
 * nor reorder what is shown. Every path of `arbor` that prints session text goes through it.
 *
 * @example
 * ```ts
 * terminalSafe("hi\u001b]52;c;ZXZpbA==\u0007"); // "hi\\x1b]52;c;ZXZpbA==\\x07"
 * ```
 */
export function terminalSafe(text: string, options: TerminalTextOptions = {}): string {
  const source = options.multiline ? text.replace(/\r\n/gu, "\n") : text;
  return source.replace(CONTROL_CHARACTERS, (char) =>
    options.multiline && (char === "\n" || char === "\t") ? char : visible(char),
  );
}

/** Characters `JSON.stringify` leaves raw that a terminal still acts on. */
const JSON_RAW_CONTROLS =
  /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;

/**
 * `JSON.stringify(value, null, indent)` (indent 2 unless given; 0 for one line) with the control characters it leaves raw (DEL, C1,
 * bidi controls, line separators) written as `\uXXXX` escapes: the same JSON for a
 * parser, and nothing a terminal acts on. (C0 controls are escaped by JSON itself.)
 */
export function terminalSafeJson(value: unknown, indent = 2): string {
  return JSON.stringify(value, null, indent).replace(
    JSON_RAW_CONTROLS,
    (char) => `\\u${(char.codePointAt(0) ?? 0).toString(16).padStart(4, "0")}`,
  );
}
