import { Box, Text, useInput } from "ink";
import { useState } from "react";

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
}

/**
 * The prompt editor: Enter sends, a line ending in `\` (or Alt+Enter) continues on a new
 * line, ↑ and ↓ walk the history, Backspace deletes.
 */
export function PromptInput({
  onSubmit,
  history,
  active,
  initialValue,
  placeholder,
}: PromptInputProps) {
  const [value, setValue] = useState(initialValue ?? "");
  // history.length means "the line being written", not a history entry.
  const [historyIndex, setHistoryIndex] = useState(history.length);
  const [draft, setDraft] = useState("");

  const submitText = (raw: string) => {
    const text = raw.trim();
    if (!text) return;
    onSubmit(text);
    setValue("");
    setDraft("");
    setHistoryIndex(history.length + 1);
  };

  useInput(
    (input, key) => {
      if (key.return) {
        if (key.meta || value.endsWith("\\")) {
          setValue((current) => `${current.endsWith("\\") ? current.slice(0, -1) : current}\n`);
          return;
        }
        submitText(value);
        return;
      }
      if (key.upArrow) {
        if (historyIndex === 0 || history.length === 0) return;
        if (historyIndex >= history.length) setDraft(value);
        const next = Math.min(historyIndex, history.length) - 1;
        setHistoryIndex(next);
        setValue(history[next] ?? "");
        return;
      }
      if (key.downArrow) {
        if (historyIndex >= history.length) return;
        const next = historyIndex + 1;
        setHistoryIndex(next);
        setValue(next >= history.length ? draft : (history[next] ?? ""));
        return;
      }
      if (key.backspace || key.delete) {
        setValue((current) => current.slice(0, -1));
        return;
      }
      if (key.ctrl || key.meta || key.escape || key.tab || key.leftArrow || key.rightArrow) return;
      if (!input) return;
      // Typed text and Enter can arrive in one chunk (fast typing, tmux, a terminal that
      // batches); a single trailing carriage return there still means "send". Pasted text
      // with line breaks inside stays one multi-line message.
      const body = input.replace(/\r\n?/gu, "\r");
      const breaks = body.split("\r").length - 1;
      if (breaks === 1 && body.endsWith("\r") && !body.endsWith("\\\r")) {
        submitText(value + body.slice(0, -1));
        return;
      }
      setValue((current) => current + body.replace(/\r/gu, "\n"));
    },
    { isActive: active },
  );

  const lines = value.split("\n");
  return (
    <Box flexDirection="column">
      {value === "" ? (
        <Text>
          <Text color="cyan">{"› "}</Text>
          <Text dimColor>{placeholder ?? ""}</Text>
        </Text>
      ) : (
        lines.map((line, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: lines have no identity but their position
          <Text key={index}>
            <Text color="cyan">{index === 0 ? "› " : "  "}</Text>
            {line}
            {index === lines.length - 1 && active ? <Text inverse> </Text> : null}
          </Text>
        ))
      )}
    </Box>
  );
}
