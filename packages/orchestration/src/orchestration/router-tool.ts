import { isEntryOfType, type Session } from "@arbor/session-store";
import { type AgentTool, defineTool } from "@arbor/turn-runner";
import { z } from "zod";
import { type AgentNode, ROUTER_TOOL_NAME } from "./agent-tree.js";
import type { AgentPlace } from "./orchestration-context.js";

/**
 * The `router__handoff-to` tool of a router: `{ agent: one of the destinations' names,
 * message? }`. Calling it records the choice and ends the router's run at once (the
 * turn runner has no tool that ends a run, so the run is aborted; the tool's result is
 * written by {@link closeRouterTurn} once it ended). The first call of a run wins.
 */
export function createRouterTool(node: AgentNode, place: () => AgentPlace): AgentTool {
  const names = node.destinations.map((destination) => destination.definition.name);
  const listing = node.destinations
    .map((destination) => {
      const about = destination.definition.description;
      return `- ${destination.definition.name}${about ? `: ${about}` : ""}`;
    })
    .join("\n");
  return defineTool({
    name: ROUTER_TOOL_NAME,
    description: `Hands the user's request to another agent, which answers it; your session ends with this call. Answer trivial requests yourself instead. Destinations:\n${listing}`,
    // Handing on is itself an answer: a router on its forced final turn may still do it.
    availableOnFinalTurn: true,
    parameters: z.object({
      agent: z.enum(names as [string, ...string[]]).describe("The destination agent"),
      message: z.string().max(100_000).optional().describe("A note for the destination"),
    }),
    execute: (args, context) => {
      const current = place();
      current.router.choice ??= {
        agent: args.agent,
        message: args.message,
        toolCallId: context.toolCallId,
      };
      current.host.abort();
      return `Handed off to ${args.agent}.`;
    },
  });
}

/**
 * Gives every tool call of the router's last answer a result, so the session stays a valid
 * conversation: the handoff call says where the request went; other calls were not run.
 */
export async function closeRouterTurn(
  session: Session,
  choice: { agent: string; toolCallId: string },
  now: () => number,
): Promise<void> {
  const branch = session.getBranch();
  const answered = new Set<string>();
  for (let i = branch.length - 1; i >= 0; i--) {
    const entry = branch[i];
    if (!entry || !isEntryOfType(entry, "message")) continue;
    const message = entry.message as { role: string; toolCallId?: string; content?: unknown };
    if (message.role === "toolResult" && message.toolCallId) answered.add(message.toolCallId);
    if (message.role !== "assistant") continue;
    const calls = Array.isArray(message.content)
      ? (message.content as Array<{ type?: string; id?: string; name?: string }>).filter(
          (part) => part.type === "toolCall" && typeof part.id === "string",
        )
      : [];
    for (const call of calls) {
      if (answered.has(call.id as string)) continue;
      const chosen = call.id === choice.toolCallId;
      await session.appendMessage({
        role: "toolResult",
        toolCallId: call.id,
        toolName: call.name ?? "",
        content: [
          {
            type: "text",
            text: chosen
              ? `Handed off to ${choice.agent}.`
              : `Not run: the request was handed off to ${choice.agent}.`,
          },
        ],
        isError: !chosen,
        timestamp: now(),
      });
    }
    return;
  }
}
