import { resolve } from "node:path";
import type { AgentDefinition } from "../definition/index.js";
import { type LoadAgentFileOptions, loadAgentFile } from "../definition/index.js";
import { AgentDefinitionError } from "../errors/index.js";
import {
  type AgentNode,
  hasOrchestration,
  ROUTER_TOOL_NAME,
  subAgentToolName,
} from "./agent-tree.js";
import { compileInputSchema } from "./input-schema.js";

/** Options of {@link loadAgentTree}. */
export type LoadAgentTreeOptions = LoadAgentFileOptions;

/** One reference of a definition to another agent file: the key that names it and the path. */
interface Reference {
  key: string;
  path: string;
  role: "advisors" | "destinations" | "handoff" | "agents";
}

function referencesOf(definition: AgentDefinition): Reference[] {
  return [
    ...(definition.advisors ?? []).map((path, i) => ({
      key: `advisors[${i}]`,
      path,
      role: "advisors" as const,
    })),
    ...(definition.router?.destinations ?? []).map((path, i) => ({
      key: `router.destinations[${i}]`,
      path,
      role: "destinations" as const,
    })),
    ...(definition.handoff !== undefined
      ? [{ key: "handoff", path: definition.handoff, role: "handoff" as const }]
      : []),
    ...(definition.agents ?? []).map((path, i) => ({
      key: `agents[${i}]`,
      path,
      role: "agents" as const,
    })),
  ];
}

/**
 * Loads an agent file and every agent file it names (advisors, router destinations,
 * handoff, sub-agents), recursively. Relative paths are resolved against the naming file's
 * folder. Refused at load time, each naming the file, the key and the reason: a missing
 * or unreadable file, an invalid definition (unknown keys included), a cycle (an agent
 * that reaches itself), two sub-agents with one tool name, two destinations with one name,
 * an `inputSchema` that is not a JSON schema of an object.
 * @throws AgentDefinitionError
 * @example
 * const main = await loadAgentTree(".arbor/agents/main.md");
 * const run = runAgent(main, "Plan the release", { sessionDir: ".arbor/sessions", models });
 */
export async function loadAgentTree(
  path: string,
  options: LoadAgentTreeOptions = {},
): Promise<AgentNode> {
  const load = onceEachFile(options);
  const root = resolve(path);
  return buildNode(await load(root), root, [], load, new Map());
}

/**
 * Resolves the agents a definition given in code names (absolute paths, or relative to the
 * working directory) into an {@link AgentNode}, with the checks of {@link loadAgentTree}.
 * @throws AgentDefinitionError
 */
export async function resolveAgentTree(
  definition: AgentDefinition,
  options: LoadAgentTreeOptions = {},
): Promise<AgentNode> {
  const load = onceEachFile(options);
  return buildNode(definition, "<inline>", [], load, new Map());
}

async function buildNode(
  definition: AgentDefinition,
  file: string,
  stack: readonly string[],
  load: (file: string) => Promise<AgentDefinition>,
  built: Map<string, Promise<AgentNode>>,
): Promise<AgentNode> {
  const chain = [...stack, file];
  if (definition.inputSchema !== undefined) {
    const compiled = compileInputSchema(definition.inputSchema);
    if (!compiled.ok) {
      throw new AgentDefinitionError(file, [{ key: "inputSchema", reason: compiled.reason }]);
    }
  }
  const node: AgentNode = {
    definition,
    file,
    advisors: [],
    destinations: [],
    handoff: undefined,
    agents: [],
  };
  const children: Record<Reference["role"], AgentNode[]> = {
    advisors: [],
    destinations: [],
    handoff: [],
    agents: [],
  };
  for (const reference of referencesOf(definition)) {
    const target = resolve(reference.path);
    if (chain.includes(target)) {
      const loop = [...chain.slice(chain.indexOf(target)), target].join(" → ");
      throw new AgentDefinitionError(file, [
        {
          key: reference.key,
          reason: `cycle: ${loop} (an agent may not reach itself through advisors, router, handoff or agents)`,
        },
      ]);
    }
    const child = await childNode(file, reference, target, chain, load, built);
    children[reference.role].push(child);
  }
  checkNames(file, definition, children.agents, children.destinations);
  node.advisors = children.advisors;
  node.destinations = children.destinations;
  node.handoff = children.handoff[0];
  node.agents = children.agents;
  return node;
}

async function childNode(
  file: string,
  reference: Reference,
  target: string,
  chain: readonly string[],
  load: (file: string) => Promise<AgentDefinition>,
  built: Map<string, Promise<AgentNode>>,
): Promise<AgentNode> {
  const known = built.get(target);
  if (known) return known;
  let definition: AgentDefinition;
  try {
    definition = await load(target);
  } catch (error) {
    // A file that cannot be read is the naming file's fault: say which key named it.
    if (AgentDefinitionError.isInstance(error) && error.key === "(file)") {
      throw new AgentDefinitionError(
        file,
        [{ key: reference.key, reason: `${reference.path}: ${error.reason}` }],
        { cause: error },
      );
    }
    throw error;
  }
  const pending = buildNode(definition, target, chain, load, built);
  built.set(target, pending);
  return pending;
}

function checkNames(
  file: string,
  definition: AgentDefinition,
  agents: readonly AgentNode[],
  destinations: readonly AgentNode[],
): void {
  const problems: Array<{ key: string; reason: string }> = [];
  const tools = new Map<string, number>();
  agents.forEach((agent, i) => {
    const tool = subAgentToolName(agent.definition);
    const first = tools.get(tool);
    if (first !== undefined) {
      problems.push({
        key: `agents[${i}]`,
        reason: `duplicate tool name ${tool}: agents[${first}] has the name "${agent.definition.name}" too; give one of them another name`,
      });
    } else tools.set(tool, i);
    if (tool === ROUTER_TOOL_NAME) {
      problems.push({ key: `agents[${i}]`, reason: `${tool} is the router's tool name` });
    }
  });
  const names = new Map<string, number>();
  destinations.forEach((destination, i) => {
    const first = names.get(destination.definition.name);
    if (first !== undefined) {
      problems.push({
        key: `router.destinations[${i}]`,
        reason: `duplicate destination name "${destination.definition.name}" (also router.destinations[${first}]); give one of them another name`,
      });
    } else names.set(destination.definition.name, i);
  });
  if (definition.tools?.some((name) => tools.has(name))) {
    const clash = definition.tools.find((name) => tools.has(name));
    problems.push({ key: "tools", reason: `${clash} is the tool name of a sub-agent` });
  }
  if (problems.length > 0) throw new AgentDefinitionError(file, problems);
}

/** Loads each agent file once, however many agents name it. */
function onceEachFile(options: LoadAgentTreeOptions): (file: string) => Promise<AgentDefinition> {
  const loaded = new Map<string, Promise<AgentDefinition>>();
  return (file) => {
    let pending = loaded.get(file);
    if (!pending) {
      pending = loadAgentFile(file, options);
      loaded.set(file, pending);
    }
    return pending;
  };
}

/** Whether an agent given to a host is a loaded tree rather than a definition. */
export function isAgentNode(agent: AgentDefinition | AgentNode): agent is AgentNode {
  return "definition" in agent && "file" in agent;
}

/**
 * The tree of an agent given to a host or `runAgent`: a loaded tree as it is; a definition
 * naming other agents resolved with {@link resolveAgentTree}; any other definition as a
 * tree of one.
 * @throws AgentDefinitionError for agent files that cannot load
 */
export async function agentTreeOf(agent: AgentDefinition | AgentNode): Promise<AgentNode> {
  if (isAgentNode(agent)) return agent;
  if (hasOrchestration(agent)) return resolveAgentTree(agent);
  return {
    definition: agent,
    file: "<inline>",
    advisors: [],
    destinations: [],
    handoff: undefined,
    agents: [],
  };
}

/** Whether a tree has more than its root agent. */
export function isTree(node: AgentNode): boolean {
  return (
    node.advisors.length > 0 ||
    node.destinations.length > 0 ||
    node.handoff !== undefined ||
    node.agents.length > 0
  );
}

/**
 * The definition of one agent of a tree, opened alone: without the keys that name other
 * agents (the tree's run gives it their tools and runs them).
 */
export function singleAgentDefinition(definition: AgentDefinition): AgentDefinition {
  const { advisors: _a, router: _r, handoff: _h, agents: _s, ...single } = definition;
  return single;
}

/** The definition of an agent given as a definition or a tree (the tree's root). */
export function definitionOf(agent: AgentDefinition | AgentNode): AgentDefinition {
  return isAgentNode(agent) ? agent.definition : agent;
}
