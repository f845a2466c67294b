import type { ToolUpdateEvent } from "@arbor/orchestration";
import { Box, Text } from "ink";
import { useEffect, useState } from "react";
import { terminalSafe } from "../../output/index.js";

/** Subscribes to extension tools' progress (`AgentHost.onToolUpdate`); returns a remover. */
export type ToolUpdateSource = (listener: (update: ToolUpdateEvent) => void) => () => void;

/** How much of an update's text is shown. */
const MAX_PROGRESS_CHARS = 120;

/**
 * The latest progress of each extension tool running now (`ctx.onUpdate`), one line each,
 * shown while an answer runs and cleared when it ends.
 */
export function ToolProgress({ source, running }: { source: ToolUpdateSource; running: boolean }) {
  const [latest, setLatest] = useState<ReadonlyMap<string, ToolUpdateEvent>>(new Map());
  useEffect(
    () =>
      source((update) => setLatest((current) => new Map(current).set(update.toolCallId, update))),
    [source],
  );
  useEffect(() => {
    if (!running) setLatest(new Map());
  }, [running]);
  if (!running || latest.size === 0) return null;
  return (
    <Box flexDirection="column">
      {[...latest.values()].map((update) => (
        <Text key={update.toolCallId} color="magenta">
          {`⚙ ${terminalSafe(update.toolName)} `}
          <Text color="gray">{terminalSafe(progressText(update))}</Text>
        </Text>
      ))}
    </Box>
  );
}

function progressText(update: ToolUpdateEvent): string {
  const text = update.content
    .map((block) => (block.type === "text" ? block.text : "[image]"))
    .join(" ")
    .replace(/\s+/gu, " ")
    .trim();
  return text.length > MAX_PROGRESS_CHARS ? `${text.slice(0, MAX_PROGRESS_CHARS)}…` : text;
}
