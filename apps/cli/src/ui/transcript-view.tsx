import { Box, Text } from "ink";
import { childRunText } from "../agent-tree/child-run-text.js";
import { terminalSafe } from "../output/index.js";
import { CustomMessageView } from "./extension-ui/index.js";
import type { ToolCallView, TranscriptItem } from "./transcript.js";

const TOOL_MARK: Record<ToolCallView["status"], string> = { running: "…", done: "✓", error: "✗" };
const NOTICE_COLOR = { info: "blue", warning: "yellow", error: "red" } as const;

function lastLine(text: string, max: number): string {
  const flat = text.replace(/\s+/gu, " ").trim();
  return flat.length > max ? `…${flat.slice(flat.length - max)}` : flat;
}

function Item({ item }: { item: TranscriptItem }) {
  if (item.kind === "user") {
    return (
      <Box marginTop={1}>
        <Text color="cyan" bold>
          {"you › "}
        </Text>
        <Text>{terminalSafe(item.text, { multiline: true })}</Text>
      </Box>
    );
  }
  if (item.kind === "notice") {
    return (
      <Box marginTop={1}>
        <Text color={NOTICE_COLOR[item.tone]}>{terminalSafe(item.text, { multiline: true })}</Text>
      </Box>
    );
  }
  if (item.kind === "child") {
    const color =
      item.outcome === "running" ? "yellow" : item.outcome === "succeeded" ? "green" : "red";
    return (
      <Box marginTop={1} flexDirection="column">
        <Text color={color}>{terminalSafe(childRunText(item))}</Text>
        {item.answer ? (
          <>
            <Text color="green" bold>{`${terminalSafe(item.agentPath)} ›`}</Text>
            <Text>{terminalSafe(item.answer, { multiline: true })}</Text>
          </>
        ) : null}
      </Box>
    );
  }
  if (item.kind === "custom") {
    return <CustomMessageView id={item.id} customType={item.customType} text={item.text} />;
  }
  return (
    <Box flexDirection="column" marginTop={1}>
      {item.agent ? <Text color="green" bold>{`${terminalSafe(item.agent)} ›`}</Text> : null}
      {item.thinking ? (
        <Text dimColor>{`thinking: ${terminalSafe(lastLine(item.thinking, 70))}`}</Text>
      ) : null}
      {item.tools.length > 0 ? (
        <Text color="magenta">
          {item.tools
            .map((tool) => `⚙ ${terminalSafe(tool.name)} ${TOOL_MARK[tool.status]}`)
            .join("  ")}
        </Text>
      ) : null}
      {item.text ? <Text>{terminalSafe(item.text, { multiline: true })}</Text> : null}
      {item.status === "aborted" ? <Text color="red">[aborted]</Text> : null}
    </Box>
  );
}

/**
 * The conversation: the newest `limit` items of the transcript. Text from the session and
 * the model is shown through {@link terminalSafe}: escape sequences in it are printed, not
 * obeyed.
 */
export function TranscriptView({
  items,
  limit = 30,
}: {
  items: readonly TranscriptItem[];
  limit?: number;
}) {
  const shown = items.slice(-limit);
  return (
    <Box flexDirection="column">
      {items.length > shown.length ? (
        <Text dimColor>{`(${items.length - shown.length} earlier items)`}</Text>
      ) : null}
      {shown.map((item) => (
        <Item key={item.id} item={item} />
      ))}
    </Box>
  );
}
