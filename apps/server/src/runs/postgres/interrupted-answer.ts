import type { AgentDefinition, AgentHostOptions } from "@arbor/orchestration";
import type { AgentMessage } from "@arbor/session-store";
import type { ServerRunEvent } from "../server-run-event.js";

/**
 * The answer a run was streaming when its instance died, as the aborted assistant message
 * the session keeps (what a client already saw of it): the text deltas of the turn after
 * the last stored message, block by block. Undefined when nothing was being streamed (the
 * run died between messages, in a tool or in a backoff).
 */
export function interruptedAnswer(
  events: readonly ServerRunEvent[],
  definition: AgentDefinition | undefined,
  models: AgentHostOptions["models"],
  now: number,
): AgentMessage | undefined {
  let lastEnd = -1;
  for (const [i, event] of events.entries()) if (event.type === "message_end") lastEnd = i;
  const blocks = new Map<number, string>();
  for (const event of events.slice(lastEnd + 1)) {
    if (event.type === "text_delta")
      blocks.set(event.index, (blocks.get(event.index) ?? "") + event.delta);
  }
  const content = [...blocks.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, text]) => ({ type: "text", text }))
    .filter((block) => block.text !== "");
  if (content.length === 0) return undefined;
  const target = definition?.models[0] as { provider?: string; model?: string } | undefined;
  const provider = target?.provider ?? "unknown";
  const settings =
    typeof models === "object" && models !== null && "providers" in models
      ? (models.providers as Record<string, { api?: string; model?: string }>)[provider]
      : undefined;
  return {
    role: "assistant",
    content,
    stopReason: "aborted",
    usage: {
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 0,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
    api: settings?.api ?? "unknown",
    provider,
    model: target?.model ?? settings?.model ?? "unknown",
    timestamp: now,
  };
}
