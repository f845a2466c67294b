import type { AgentDefinition } from "../definition/index.js";

/**
 * An agent with the agents its definition names, loaded: what {@link runAgent} runs. The
 * graph has no cycles (the loader refuses them); an agent named twice is one node.
 */
export interface AgentNode {
  definition: AgentDefinition;
  /** The agent file (resolved), or `<inline>` for a definition given in code. */
  file: string;
  /** Run in parallel before this agent, each on the original request. */
  advisors: readonly AgentNode[];
  /** Where this agent may hand the request (`router.destinations`); empty: not a router. */
  destinations: readonly AgentNode[];
  /** Run after this agent (or its router chain) with the request and the response. */
  handoff: AgentNode | undefined;
  /** Sub-agents, each offered as an `agent__<name>` tool. */
  agents: readonly AgentNode[];
}

/** The prefix of sub-agent tools: `agent__<name>`. */
export const SUB_AGENT_TOOL_PREFIX = "agent__";

/** The tool a router hands a request over with. */
export const ROUTER_TOOL_NAME = "router__handoff-to";

/** The tool name of a sub-agent. */
export function subAgentToolName(definition: AgentDefinition): string {
  return `${SUB_AGENT_TOOL_PREFIX}${definition.name}`;
}

/** True when the definition names other agents (advisors, router, handoff or sub-agents). */
export function hasOrchestration(definition: AgentDefinition): boolean {
  return (
    (definition.advisors?.length ?? 0) > 0 ||
    definition.router !== undefined ||
    definition.handoff !== undefined ||
    (definition.agents?.length ?? 0) > 0
  );
}
