import type { OrchestrationEvent } from "@arbor/orchestration";
import type { AgentEvent } from "@arbor/turn-runner";
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
  event: OrchestrationEvent,
): readonly TranscriptItem[] {
  switch (event.type) {
    case "child_start":
      return withChildUpdate(items, { ...event, id: nextItemId("c"), outcome: "running" });
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
