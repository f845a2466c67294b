import type { EditAction } from "./line-editor.js";

/** What one key (or one pasted text) asks of the prompt. */
export type PromptKey =
  | { type: "edit"; action: EditAction }
  | { type: "submit" }
  | { type: "newline" }
  | { type: "history_up" | "history_down" | "complete" | "paste_start" | "paste_end" }
  | { type: "ignore" };

const edit = (action: EditAction): PromptKey => ({ type: "edit", action });

/** Escape sequences, as terminals send them (xterm, VT220, rxvt, tmux). */
const SEQUENCES: Record<string, PromptKey> = {
  "\u001b[A": { type: "history_up" },
  "\u001bOA": { type: "history_up" },
  "\u001b[B": { type: "history_down" },
  "\u001bOB": { type: "history_down" },
  "\u001b[C": edit({ type: "right" }),
  "\u001bOC": edit({ type: "right" }),
  "\u001b[D": edit({ type: "left" }),
  "\u001bOD": edit({ type: "left" }),
  "\u001b[H": edit({ type: "line_start" }),
  "\u001bOH": edit({ type: "line_start" }),
  "\u001b[1~": edit({ type: "line_start" }),
  "\u001b[7~": edit({ type: "line_start" }),
  "\u001b[F": edit({ type: "line_end" }),
  "\u001bOF": edit({ type: "line_end" }),
  "\u001b[4~": edit({ type: "line_end" }),
  "\u001b[8~": edit({ type: "line_end" }),
  "\u001b[3~": edit({ type: "delete" }),
  "\u001b[1;5D": edit({ type: "word_left" }),
  "\u001b[1;3D": edit({ type: "word_left" }),
  "\u001b[5D": edit({ type: "word_left" }),
  "\u001bb": edit({ type: "word_left" }),
  "\u001b[1;5C": edit({ type: "word_right" }),
  "\u001b[1;3C": edit({ type: "word_right" }),
  "\u001b[5C": edit({ type: "word_right" }),
  "\u001bf": edit({ type: "word_right" }),
  "\u001b\u007f": edit({ type: "delete_word_before" }),
  "\u001b\b": edit({ type: "delete_word_before" }),
  "\u001bd": edit({ type: "delete_word_after" }),
  "\u001b[3;5~": edit({ type: "delete_word_after" }),
  "\u001b\r": { type: "newline" },
  "\u001b[200~": { type: "paste_start" },
  "\u001b[201~": { type: "paste_end" },
};

/** Control characters (Ctrl+letter), readline's bindings. */
const CONTROLS: Record<string, PromptKey> = {
  "\r": { type: "submit" },
  "\n": { type: "newline" },
  "\t": { type: "complete" },
  "\u007f": edit({ type: "backspace" }),
  "\b": edit({ type: "backspace" }),
  "\u0001": edit({ type: "line_start" }),
  "\u0005": edit({ type: "line_end" }),
  "\u0002": edit({ type: "left" }),
  "\u0006": edit({ type: "right" }),
  "\u0004": edit({ type: "delete" }),
  "\u0015": edit({ type: "delete_to_line_start" }),
  "\u000b": edit({ type: "delete_to_line_end" }),
  "\u0017": edit({ type: "delete_word_before" }),
};

/**
 * Turns one input event (ink hands escape sequences one by one, and a run of other
 * characters as one string) into keys: each escape sequence is a key; in a run, each
 * control character is a key and the text between them is inserted. So several keys
 * arriving in one read are all applied, in order.
 */
export function promptKeys(input: string): PromptKey[] {
  if (input.startsWith("\u001b")) return [SEQUENCES[input] ?? { type: "ignore" }];
  if (input.length > 1) {
    // Keys typed before raw mode end in "\n"; a paste without brackets holds line breaks
    // inside: it stays one multi-line text (one trailing break still means Enter).
    const body = input.replace(/\r\n?|\n/gu, "\r");
    const breaks = body.split("\r").length - 1;
    if (breaks > 1 || (breaks === 1 && !body.endsWith("\r"))) {
      // biome-ignore lint/suspicious/noControlCharactersInRegex: dropping control characters is the point
      const text = body.replace(/\r/gu, "\n").replace(/[\u0000-\u0008\u000b-\u001f\u007f]/gu, "");
      return [edit({ type: "insert", text })];
    }
    if (breaks === 1) return [...keysOf(body.slice(0, -1)), { type: "submit" }];
  }
  return keysOf(input);
}

function keysOf(input: string): PromptKey[] {
  const keys: PromptKey[] = [];
  let text = "";
  const flush = () => {
    if (text) keys.push(edit({ type: "insert", text }));
    text = "";
  };
  for (const char of input) {
    const code = char.codePointAt(0) ?? 0;
    if (code < 0x20 || code === 0x7f) {
      flush();
      keys.push(CONTROLS[char] ?? { type: "ignore" });
    } else text += char;
  }
  flush();
  return keys;
}
