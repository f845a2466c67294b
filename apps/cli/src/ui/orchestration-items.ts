import type { AgentEvent } from "@arbor/orchestration";
import { ROUTER_TOOL_NAME, type RunEvent } from "@arbor/orchestration";
import { withChildUpdate } from "./child-items.js";
import { nextItemId, type TranscriptItem } from "./transcript.js";
import { applyAgentEvent } from "./transcript-events.js";

/**
 * Folds one event of an agent file's run into the transcript: `child_start` / `child_end`
 * become a row per child run (advisor consulted, request routed, handoff, sub-agent call)
 * that shows it running, then its outcome, tokens and cost; the answering agents' own
 * events stream as usual, each answer marked with the agent path of the agent giving it.
 */
export function applyOrchestrationEvent(
  items: readonly TranscriptItem[],
  event: RunEvent,
): readonly TranscriptItem[] {
  switch (event.type) {
    case "child_start": {
      // A router's hand-off call gets no tool result event: its destination starting is one.
      const settled = event.role === "destination" ? withRouterCallsDone(items) : items;
      return withChildUpdate(settled, { ...event, id: nextItemId("c"), outcome: "running" });
    }
    case "child_end":
      return withChildUpdate(items, { ...event, id: nextItemId("c") });
    case "orchestration_end":
      return items;
    default: {
      const agentEvent = event as AgentEvent;
      const next = applyAgentEvent(items, agentEvent);
      if (agentEvent.type !== "turn_start") return next;
      const last = next.at(-1);
      if (last?.kind !== "assistant") return next;
      return [...next.slice(0, -1), { ...last, agent: agentEvent.ancestry.agentPath }];
    }
  }
}

/** The transcript with every running `router__handoff-to` call marked done. */
function withRouterCallsDone(items: readonly TranscriptItem[]): readonly TranscriptItem[] {
  return items.map((item) =>
    item.kind === "assistant" &&
    item.tools.some((tool) => tool.name === ROUTER_TOOL_NAME && tool.status === "running")
      ? {
          ...item,
          tools: item.tools.map((tool) =>
            tool.name === ROUTER_TOOL_NAME && tool.status === "running"
              ? { ...tool, status: "done" as const }
              : tool,
          ),
        }
      : item,
  );
}
