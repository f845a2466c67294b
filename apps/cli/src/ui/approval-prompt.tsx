import { Box, Text, useInput } from "ink";
import { terminalSafe } from "../output/index.js";
import type { PendingApproval } from "./approval-prompter.js";

/** The most detail lines shown under the question. */
const MAX_DETAIL_LINES = 16;

/**
 * The question for a tool call that needs a yes: the tool, what it does (the command or
 * the path and the change), and the keys: `y` yes, `n` or Esc no, `a` always for this project.
 */
export function ApprovalPrompt({ pending }: { pending: PendingApproval }) {
  useInput((input, key) => {
    const letter = input.toLowerCase();
    if (letter === "y") pending.answer("yes");
    else if (letter === "n" || key.escape) pending.answer("no");
    else if (letter === "a") pending.answer("always");
  });
  const { request } = pending;
  const detail = request.detail ? request.detail.split("\n") : [];
  const shown = detail.slice(0, MAX_DETAIL_LINES);
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="yellow" paddingX={1}>
      <Text>
        <Text color="yellow" bold>
          Allow {request.tool}?
        </Text>{" "}
        {terminalSafe(request.subject)}
      </Text>
      {shown.map((line, index) => (
        <Text
          // biome-ignore lint/suspicious/noArrayIndexKey: lines of a fixed text
          key={index}
          color={line.startsWith("+") ? "green" : line.startsWith("-") ? "red" : "gray"}
        >
          {terminalSafe(line)}
        </Text>
      ))}
      {detail.length > shown.length ? (
        <Text color="gray">… {detail.length - shown.length} more lines</Text>
      ) : null}
      <Text>
        <Text bold>y</Text> yes · <Text bold>n</Text> no · <Text bold>a</Text> always for this
        project
      </Text>
    </Box>
  );
}
