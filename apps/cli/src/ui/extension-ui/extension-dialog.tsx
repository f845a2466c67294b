import type { CustomUIKey, UIRequest } from "@arbor/orchestration";
import { Box, Text, useInput } from "ink";
import { useRef, useState } from "react";
import { terminalSafe } from "../../output/index.js";
import type { PendingUIRequest } from "./terminal-extension-ui.js";

/**
 * The dialog of an extension's request, with the keyboard focus: `select` (↑/↓, Enter),
 * `confirm` (y/n, Enter is yes), `input` (type, Enter), `custom` (the extension's lines and
 * keys). Esc always closes it with no answer.
 */
export function ExtensionDialog({
  pending,
  width = 80,
  queued = 0,
}: {
  pending: PendingUIRequest;
  width?: number;
  queued?: number;
}) {
  const { request } = pending;
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="cyan" paddingX={1}>
      <Text color="gray">
        {terminalSafe(request.extensionName)} asks{queued > 0 ? ` (${queued} more waiting)` : ""}
      </Text>
      <DialogBody key={request.id} pending={pending} width={width} />
    </Box>
  );
}

function DialogBody({ pending, width }: { pending: PendingUIRequest; width: number }) {
  const { request } = pending;
  switch (request.kind) {
    case "select":
      return <SelectBody pending={pending} request={request} />;
    case "confirm":
      return <ConfirmBody pending={pending} request={request} />;
    case "input":
      return <InputBody pending={pending} request={request} />;
    default:
      return <CustomBody pending={pending} request={request} width={width} />;
  }
}

function SelectBody({
  pending,
  request,
}: {
  pending: PendingUIRequest;
  request: Extract<UIRequest, { kind: "select" }>;
}) {
  // Keys can arrive faster than React re-renders: read and move the choice through a ref.
  const chosen = useRef(0);
  const [index, setIndex] = useState(0);
  const move = (step: number) => {
    const count = request.options.length;
    chosen.current = (chosen.current + step + count) % count;
    setIndex(chosen.current);
  };
  useInput((_input, key) => {
    if (key.escape) pending.answer(undefined);
    else if (key.upArrow) move(-1);
    else if (key.downArrow) move(1);
    else if (key.return) pending.answer(request.options[chosen.current]);
  });
  return (
    <Box flexDirection="column">
      {request.title.split("\n").map((line, at) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: lines of a fixed text
        <Text key={at} bold>
          {terminalSafe(line)}
        </Text>
      ))}
      {request.options.map((option, at) => (
        <Text key={option} color={at === index ? "cyan" : undefined}>
          {at === index ? "❯ " : "  "}
          {terminalSafe(option)}
        </Text>
      ))}
      <Text color="gray">↑/↓ choose · Enter pick · Esc dismiss</Text>
    </Box>
  );
}

function ConfirmBody({
  pending,
  request,
}: {
  pending: PendingUIRequest;
  request: Extract<UIRequest, { kind: "confirm" }>;
}) {
  useInput((input, key) => {
    const letter = input.toLowerCase();
    if (key.escape) pending.answer(undefined);
    else if (letter === "y" || key.return) pending.answer(true);
    else if (letter === "n") pending.answer(false);
  });
  return (
    <Box flexDirection="column">
      <Text bold>{terminalSafe(request.title)}</Text>
      {request.message ? <Text>{terminalSafe(request.message)}</Text> : null}
      <Text color="gray">y yes · n no · Esc dismiss</Text>
    </Box>
  );
}

function InputBody({
  pending,
  request,
}: {
  pending: PendingUIRequest;
  request: Extract<UIRequest, { kind: "input" }>;
}) {
  const typed = useRef("");
  const [text, setText] = useState("");
  const edit = (next: string) => {
    typed.current = next;
    setText(next);
  };
  useInput((input, key) => {
    if (key.escape) pending.answer(undefined);
    else if (key.return) pending.answer(typed.current);
    else if (key.backspace || key.delete) edit(typed.current.slice(0, -1));
    else if (input && !key.ctrl && !key.meta) {
      // Text and Enter can arrive in one chunk: the line ends at the first line break.
      const end = input.search(/[\r\n]/u);
      if (end < 0) edit(typed.current + input);
      else pending.answer(typed.current + input.slice(0, end));
    }
  });
  return (
    <Box flexDirection="column">
      <Text bold>{terminalSafe(request.title)}</Text>
      <Text>
        <Text color="cyan">› </Text>
        {text ? (
          terminalSafe(text)
        ) : (
          <Text color="gray">{terminalSafe(request.placeholder ?? "")}</Text>
        )}
      </Text>
      <Text color="gray">Enter send · Esc dismiss</Text>
    </Box>
  );
}

function CustomBody({
  pending,
  request,
  width,
}: {
  pending: PendingUIRequest;
  request: Extract<UIRequest, { kind: "custom" }>;
  width: number;
}) {
  const [, redraw] = useState(0);
  useInput((input, key) => {
    if (key.escape) return pending.answer(undefined);
    const pressed: CustomUIKey = {
      input,
      ...(key.upArrow ? { name: "up" as const } : {}),
      ...(key.downArrow ? { name: "down" as const } : {}),
      ...(key.leftArrow ? { name: "left" as const } : {}),
      ...(key.rightArrow ? { name: "right" as const } : {}),
      ...(key.return ? { name: "enter" as const } : {}),
      ...(key.tab ? { name: "tab" as const } : {}),
      ...(key.backspace || key.delete ? { name: "backspace" as const } : {}),
      ...(key.ctrl ? { ctrl: true } : {}),
    };
    try {
      request.component.handleKey?.(pressed, (value) => pending.answer(value));
    } catch {
      pending.answer(undefined);
    }
    redraw((n) => n + 1);
  });
  let lines: string[];
  try {
    const rendered = request.component.render(width);
    lines = Array.isArray(rendered) ? rendered.map(String) : [];
  } catch (error) {
    lines = [
      `(the extension's view failed: ${error instanceof Error ? error.message : String(error)})`,
    ];
  }
  return (
    <Box flexDirection="column">
      {lines.map((line, at) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the extension's lines
        <Text key={at}>{terminalSafe(line).slice(0, width)}</Text>
      ))}
      <Text color="gray">Esc close</Text>
    </Box>
  );
}
