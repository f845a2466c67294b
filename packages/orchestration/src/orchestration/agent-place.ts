import type { CreateStoredSessionOptions } from "@arbor/session-store";
import type { AgentTool } from "@arbor/turn-runner";
import { AgentHost, type AgentHostOptions } from "../host/index.js";
import type { AgentNode } from "./agent-tree.js";
import { ConcurrencyLimit } from "./concurrency-limit.js";
import type { AgentPlace, OrchestrationContext } from "./orchestration-context.js";
import { createRouterTool } from "./router-tool.js";
import type { RunScope } from "./run-scope.js";
import { createSubAgentTool } from "./sub-agent-tool.js";

/** Where an agent opens: a new session (with its parent) or an existing one by id. */
export type PlaceSession = { create: CreateStoredSessionOptions } | { sessionId: string };

/** Who the agent is in the run. */
export interface PlaceIdentity {
  agentPath: string;
  /** The id its run gets (drawn beforehand, so children started first can name it). */
  runId: string;
  /** The run that started it; absent for the root. */
  parentRunId: string | undefined;
  depth: number;
  lineage: readonly string[];
  forward: boolean;
  scope: RunScope;
  /** Only the root gets the app's extensions. */
  root: boolean;
  /** The OpenTelemetry context its runs start in (see {@link AgentPlace.traceContext}). */
  traceContext: unknown;
}

/** The identity of an agent in cycle detection: its file, or its name when given in code. */
export function agentIdentity(node: AgentNode): string {
  return node.file === "<inline>" ? `<inline>:${node.definition.name}` : node.file;
}

/**
 * Opens an agent of the run through {@link AgentHost}: its session, the app's tools it
 * picks, plus `router__handoff-to` for a router and an `agent__<name>` tool per sub-agent.
 */
export async function openAgentPlace(
  context: OrchestrationContext,
  node: AgentNode,
  session: PlaceSession,
  identity: PlaceIdentity,
): Promise<AgentPlace> {
  const { options } = context;
  let place: AgentPlace | undefined;
  const current = () => {
    if (!place) throw new Error("the agent is not open yet");
    return place;
  };
  const own: AgentTool[] = [];
  if (node.destinations.length > 0) own.push(createRouterTool(node, current));
  const limit = new ConcurrencyLimit(context.concurrency);
  for (const child of node.agents) own.push(createSubAgentTool(context, child, current, limit));
  const { definition } = node;
  let first = true;
  const telemetry = options.agentOptions?.telemetry;
  const agentOptions = {
    ...options.agentOptions,
    ...(identity.traceContext !== undefined
      ? { telemetry: { ...telemetry, parentContext: identity.traceContext } }
      : {}),
    ancestry: {
      originId: context.originRunId,
      ...(identity.parentRunId !== undefined ? { parentId: identity.parentRunId } : {}),
      agentPath: identity.agentPath,
    },
    // The agent runs once; its run id was drawn before, so children started first can name it.
    generateRunId: () => {
      if (!first) return context.generateRunId();
      first = false;
      return identity.runId;
    },
  };
  const hostOptions = {
    store: context.store,
    ...session,
    definition:
      definition.tools === undefined
        ? definition
        : { ...definition, tools: [...definition.tools, ...own.map((tool) => tool.name)] },
    models: options.models,
    tools: [...(options.tools ?? []), ...own],
    ...(options.tenant !== undefined ? { tenant: options.tenant } : {}),
    ...(options.rules ? { rules: options.rules } : {}),
    ...(identity.root && options.extensions ? { extensions: options.extensions } : {}),
    agentOptions,
  } as AgentHostOptions;
  const host = await AgentHost.open(hostOptions);
  place = {
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
  return place;
}
