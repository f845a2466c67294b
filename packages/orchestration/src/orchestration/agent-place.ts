import type { AgentTool } from "@arbor/turn-runner";
import type { AgentNode } from "./agent-tree.js";
import { ConcurrencyLimit } from "./concurrency-limit.js";
import type { AgentPlace, OrchestrationContext, PlaceAgent } from "./orchestration-context.js";
import { createRouterTool } from "./router-tool.js";
import type { RunScope } from "./run-scope.js";
import { createSubAgentTool } from "./sub-agent-tool.js";

/** Who the agent is in the run. */
export interface PlaceIdentity {
  agentPath: string;
  /** The id its run gets (drawn beforehand, so children started first can name it). */
  runId: string;
  depth: number;
  lineage: readonly string[];
  forward: boolean;
  scope: RunScope;
  /** The OpenTelemetry context its runs start in (see {@link AgentPlace.traceContext}). */
  traceContext: unknown;
}

/** The identity of an agent in cycle detection: its file, or its name when given in code. */
export function agentIdentity(node: AgentNode): string {
  return node.file === "<inline>" ? `<inline>:${node.definition.name}` : node.file;
}

/**
 * The tools the orchestration gives an agent of the tree: `router__handoff-to` for a router
 * and an `agent__<name>` tool per sub-agent. They find the run and the agent's place when
 * called, so the root's tools, made once when its host opens, serve every prompt.
 */
export function orchestrationTools(
  node: AgentNode,
  concurrency: number,
  context: () => OrchestrationContext,
  place: () => AgentPlace,
): AgentTool[] {
  const tools: AgentTool[] = [];
  if (node.destinations.length > 0) tools.push(createRouterTool(node, place));
  if (node.agents.length === 0) return tools;
  const limit = new ConcurrencyLimit(concurrency);
  for (const child of node.agents) tools.push(createSubAgentTool(context, child, place, limit));
  return tools;
}

/** The place of an agent in the run, around its opened agent. */
export function agentPlace(node: AgentNode, host: PlaceAgent, identity: PlaceIdentity): AgentPlace {
  return {
    node,
    host,
    scope: identity.scope,
    agentPath: identity.agentPath,
    depth: identity.depth,
    runId: identity.runId,
    lineage: identity.lineage,
    forward: identity.forward,
    traceContext: identity.traceContext,
    router: { choice: undefined },
    running: new Set(),
  };
}

/**
 * Opens a child agent of the run in a new session under its parent, with the tools the
 * orchestration gives it.
 */
export async function openChildPlace(
  context: OrchestrationContext,
  node: AgentNode,
  parent: AgentPlace,
  identity: PlaceIdentity,
): Promise<AgentPlace> {
  let place: AgentPlace | undefined;
  const current = () => {
    if (!place) throw new Error("the agent is not open yet");
    return place;
  };
  const host = await context.openChild({
    node,
    create: {
      cwd: context.cwd,
      parentSession: parent.host.session.location,
      ...(context.options.tenant !== undefined ? { tenant: context.options.tenant } : {}),
    },
    ownTools: orchestrationTools(node, context.concurrency, () => context, current),
    ancestry: {
      originId: context.originRunId,
      parentId: parent.runId,
      agentPath: identity.agentPath,
    },
    runId: identity.runId,
    traceContext: identity.traceContext,
  });
  place = agentPlace(node, host, identity);
  return place;
}
