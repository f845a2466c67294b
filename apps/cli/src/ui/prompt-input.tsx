import { Box, Text, useStdin } from "ink";
import { type MutableRefObject, useEffect, useReducer, useRef } from "react";
import { terminalSafe } from "../output/index.js";
import { applyEdit, type LineState } from "./line-editor.js";
import { type CompletionSources, complete } from "./prompt-completion.js";
import { promptKeys } from "./prompt-keys.js";

/** What the app may do to the input from outside: Ctrl+C clears it before it quits. */
export interface PromptInputControl {
  hasText(): boolean;
  clear(): void;
}

/** Props of {@link PromptInput}. */
export interface PromptInputProps {
  onSubmit: (text: string) => void;
  /** Earlier inputs, oldest first, for ↑ and ↓. */
  history: readonly string[];
  /** Whether keys go to this input (false while another view has the keyboard). */
  active: boolean;
  /** Text to start from, e.g. a user message chosen in /tree to edit and resend. */
  initialValue?: string;
  placeholder?: string;
  /** Where Tab finds slash commands and `@file` paths; without it Tab does nothing. */
  completions?: CompletionSources;
  /** Filled with the input's {@link PromptInputControl}. */
  control?: MutableRefObject<PromptInputControl | undefined>;
}

interface EditorState extends LineState {
  /** An index into the history; `history.length` means the line being written. */
  historyIndex: number;
  /** The line being written, kept while the history is shown. */
  draft: string;
  /** Inside a bracketed paste: everything is text, line breaks included. */
  pasting: boolean;
  /** What the last Tab could complete to, shown until the next key. */
  candidates: string[];
}

const atEnd = (text: string) => ({ text, cursor: text.length });

/**
 * The prompt editor, a readline-like line editor: ←/→, Home/End, Ctrl/Alt+←/→ by word,
 * Ctrl+A/E/B/F/D/U/K/W, Alt+Backspace and Alt+D, ↑/↓ through the history, Enter sends, a
 * line ending in `\\` (or Alt+Enter, Ctrl+J) continues on a new line, bracketed paste
 * inserts text as it is, Tab completes slash commands and `@file` paths. It listens to
 * ink's raw input events and splits each into keys, so several keys in one read all
 * apply; its state lives in a ref so keys faster than React's re-render see the latest text.
 */
export function PromptInput({
  onSubmit,
  history,
  active,
  initialValue,
  placeholder,
  completions,
  control,
}: PromptInputProps) {
  const editor = useRef<EditorState>({
    ...atEnd(initialValue ?? ""),
    historyIndex: history.length,
    draft: "",
    pasting: false,
    candidates: [],
  });
  const props = useRef({ onSubmit, history, completions });
  props.current = { onSubmit, history, completions };
  const [, rerender] = useReducer((count: number) => count + 1, 0);
  const { internal_eventEmitter: events, setRawMode, isRawModeSupported } = useStdin();

  const set = (change: Partial<EditorState>) => {
    editor.current = { ...editor.current, candidates: [], ...change };
    rerender();
  };
  if (control) {
    control.current = {
      hasText: () => editor.current.text !== "",
      clear: () => set({ ...atEnd(""), historyIndex: props.current.history.length, draft: "" }),
    };
  }

  const submitText = (raw: string) => {
    const text = raw.trim();
    if (!text) return;
    // The submitted line joins the history, so "the line being written" is one further on.
    set({ ...atEnd(""), draft: "", historyIndex: props.current.history.length + 1 });
    props.current.onSubmit(text);
  };

  const handle = (input: string) => {
    for (const key of promptKeys(input)) {
      const state = editor.current;
      if (state.pasting) {
        if (key.type === "paste_end") set({ pasting: false });
        else if (!input.startsWith("\u001b"))
          set(applyEdit(state, { type: "insert", text: input.replace(/\r\n?/gu, "\n") }));
        if (key.type !== "paste_end") return; // the whole event was text of the paste
        continue;
      }
      switch (key.type) {
        case "edit":
          set(applyEdit(state, key.action));
          break;
        case "paste_start":
          set({ pasting: true });
          break;
        case "newline":
          set(applyEdit(state, { type: "insert", text: "\n" }));
          break;
        case "submit":
          if (state.text.endsWith("\\")) set(atEnd(`${state.text.slice(0, -1)}\n`));
          else submitText(state.text);
          break;
        case "history_up": {
          const past = props.current.history;
          const current = Math.min(state.historyIndex, past.length);
          if (current === 0) break;
          set({
            ...atEnd(past[current - 1] ?? ""),
            historyIndex: current - 1,
            draft: current >= past.length ? state.text : state.draft,
          });
          break;
        }
        case "history_down": {
          const past = props.current.history;
          if (state.historyIndex >= past.length) break;
          const next = state.historyIndex + 1;
          set({
            ...atEnd(next >= past.length ? state.draft : (past[next] ?? "")),
            historyIndex: next,
          });
          break;
        }
        case "complete": {
          const sources = props.current.completions;
          const done = sources ? complete(state, sources) : undefined;
          if (done) set({ ...done.state, candidates: done.candidates });
          break;
        }
        default:
          break;
      }
    }
  };
  const handler = useRef(handle);
  handler.current = handle;

  useEffect(() => {
    if (!active) return;
    if (isRawModeSupported) setRawMode(true);
    const listener = (input: string) => handler.current(input);
    events.on("input", listener);
    return () => {
      events.removeListener("input", listener);
      if (isRawModeSupported) setRawMode(false);
    };
  }, [active, events, setRawMode, isRawModeSupported]);

  const { text, cursor, candidates } = editor.current;
  if (text === "") {
    return (
      <Box flexDirection="column">
        <Text>
          <Text color="cyan">{"› "}</Text>
          {active ? <Text inverse> </Text> : null}
          <Text dimColor>{placeholder ?? ""}</Text>
        </Text>
      </Box>
    );
  }
  const lines = text.split("\n");
  const cursorLine = text.slice(0, cursor).split("\n").length - 1;
  const cursorColumn = cursor - (text.lastIndexOf("\n", cursor - 1) + 1);
  return (
    <Box flexDirection="column">
      {lines.map((line, index) => {
        const prefix = <Text color="cyan">{index === 0 ? "› " : "  "}</Text>;
        if (index !== cursorLine || !active) {
          return (
            // biome-ignore lint/suspicious/noArrayIndexKey: lines have no identity but their position
            <Text key={index}>
              {prefix}
              {terminalSafe(line, { multiline: true })}
            </Text>
          );
        }
        const under = line.slice(cursorColumn, cursorColumn + 1);
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: lines have no identity but their position
          <Text key={index}>
            {prefix}
            {terminalSafe(line.slice(0, cursorColumn), { multiline: true })}
            <Text inverse>{under ? terminalSafe(under, { multiline: true }) : " "}</Text>
            {terminalSafe(line.slice(cursorColumn + 1), { multiline: true })}
          </Text>
        );
      })}
      {candidates.length > 0 ? <Text dimColor>{candidates.join("  ")}</Text> : null}
    </Box>
  );
}
