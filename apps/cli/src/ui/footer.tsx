import { basename } from "node:path";
import { Box, Text } from "ink";
import { terminalSafe } from "../output/index.js";
import type { ChatState } from "./chat-controller.js";

/** Formats a token count compactly: 950, 12.3k, 1.2M. */
export function formatTokens(count: number): string {
  if (count < 1000) return String(count);
  if (count < 1_000_000) return `${(count / 1000).toFixed(count < 10_000 ? 1 : 0)}k`;
  return `${(count / 1_000_000).toFixed(1)}M`;
}

/** The status line: model, thinking, tokens, cost, context use and the title. */
export function Footer({ state }: { state: ChatState }) {
  const percent =
    state.contextWindow > 0 ? Math.round((state.contextTokens / state.contextWindow) * 100) : 0;
  return (
    <Box>
      <Text dimColor>
        {[
          ...(state.agentFile ? [`agent ${terminalSafe(basename(state.agentFile))}`] : []),
          terminalSafe(state.modelLabel),
          `thinking ${state.thinking}`,
          `↑${formatTokens(state.usage.input)} ↓${formatTokens(state.usage.output)}`,
          `$${state.cost.toFixed(4)}`,
          `ctx ${formatTokens(state.contextTokens)}/${formatTokens(state.contextWindow)} (${percent}%)`,
          terminalSafe(state.title ?? "untitled"),
        ].join(" · ")}
      </Text>
    </Box>
  );
}
