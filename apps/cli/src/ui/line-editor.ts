/** The text being edited and the cursor in it (a UTF-16 index, 0…text.length). */
export interface LineState {
  text: string;
  cursor: number;
}

/** An editing action the prompt applies to its {@link LineState}. */
export type EditAction =
  | { type: "insert"; text: string }
  | { type: "left" | "right" | "word_left" | "word_right" | "line_start" | "line_end" }
  | { type: "backspace" | "delete" | "delete_word_before" | "delete_word_after" }
  | { type: "delete_to_line_start" | "delete_to_line_end" };

const isWordChar = (char: string | undefined) => char !== undefined && /[\p{L}\p{N}_]/u.test(char);

/** Where the word before the cursor starts (spaces, then word characters, are skipped). */
function wordStart(text: string, cursor: number): number {
  let at = cursor;
  while (at > 0 && !isWordChar(text[at - 1])) at -= 1;
  while (at > 0 && isWordChar(text[at - 1])) at -= 1;
  return at;
}

/** Where the word after the cursor ends. */
function wordEnd(text: string, cursor: number): number {
  let at = cursor;
  while (at < text.length && !isWordChar(text[at])) at += 1;
  while (at < text.length && isWordChar(text[at])) at += 1;
  return at;
}

/** The start of the line the cursor is on. */
function lineStart(text: string, cursor: number): number {
  return text.lastIndexOf("\n", cursor - 1) + 1;
}

/** The end of the line the cursor is on. */
function lineEnd(text: string, cursor: number): number {
  const next = text.indexOf("\n", cursor);
  return next < 0 ? text.length : next;
}

/** One UTF-16 unit, or two for a character outside the BMP, before or after the cursor. */
function charBefore(text: string, cursor: number): number {
  const low = text.charCodeAt(cursor - 1);
  return cursor >= 2 && low >= 0xdc00 && low <= 0xdfff ? 2 : cursor >= 1 ? 1 : 0;
}
function charAfter(text: string, cursor: number): number {
  const high = text.charCodeAt(cursor);
  return cursor < text.length - 1 && high >= 0xd800 && high <= 0xdbff
    ? 2
    : cursor < text.length
      ? 1
      : 0;
}

function cut(state: LineState, from: number, to: number, cursor: number): LineState {
  return { text: state.text.slice(0, from) + state.text.slice(to), cursor };
}

/**
 * Applies one editing action: readline's moves and deletes (by character, word and line,
 * where "line" is the line of a multi-line text the cursor is on). Pure: the same state
 * and action give the same result.
 */
export function applyEdit(state: LineState, action: EditAction): LineState {
  const { text, cursor } = state;
  switch (action.type) {
    case "insert":
      return {
        text: text.slice(0, cursor) + action.text + text.slice(cursor),
        cursor: cursor + action.text.length,
      };
    case "left":
      return { text, cursor: cursor - charBefore(text, cursor) };
    case "right":
      return { text, cursor: cursor + charAfter(text, cursor) };
    case "word_left":
      return { text, cursor: wordStart(text, cursor) };
    case "word_right":
      return { text, cursor: wordEnd(text, cursor) };
    case "line_start":
      return { text, cursor: lineStart(text, cursor) };
    case "line_end":
      return { text, cursor: lineEnd(text, cursor) };
    case "backspace": {
      const size = charBefore(text, cursor);
      return cut(state, cursor - size, cursor, cursor - size);
    }
    case "delete":
      return cut(state, cursor, cursor + charAfter(text, cursor), cursor);
    case "delete_word_before": {
      const start = wordStart(text, cursor);
      return cut(state, start, cursor, start);
    }
    case "delete_word_after":
      return cut(state, cursor, wordEnd(text, cursor), cursor);
    case "delete_to_line_start": {
      const start = lineStart(text, cursor);
      // At the start of a line, Ctrl+U joins it with the line above, as readline's kill does.
      const from = start === cursor && cursor > 0 ? cursor - 1 : start;
      return cut(state, from, cursor, from);
    }
    case "delete_to_line_end": {
      const end = lineEnd(text, cursor);
      const to = end === cursor && cursor < text.length ? cursor + 1 : end;
      return cut(state, cursor, to, cursor);
    }
  }
}
