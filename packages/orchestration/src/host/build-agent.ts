import { basename } from "node:path";
import type { ExtensionRunner } from "@arbor/extensions-api";
import type { Model } from "@arbor/providers";
import type { Session, SessionStore } from "@arbor/session-store";
import { TtsrManager } from "@arbor/ttsr";
import {
  AgentSession,
  type AgentTool,
  type McpConnections,
  summarizeBranchWithModel,
} from "@arbor/turn-runner";
import type { AgentDefinition, ModelTargetSpec } from "../definition/index.js";
import { InvalidHostOptionsError } from "../errors/index.js";
import { createModelForTarget } from "../models/index.js";
import { withDefaultReasoning } from "./default-reasoning.js";
import type { AgentHostOptions, HostAgentOptions } from "./host-options.js";

/** What a host builds an agent from, once for each session it takes up. */
export interface HostSetup {
  options: AgentHostOptions;
  /** The root agent's definition (the tree's root for an agent tree). */
  definition: AgentDefinition;
  /** The turn runner's options of the agent: the app's, with the agent's ancestry and run ids. */
  agentOptions: HostAgentOptions;
  store: SessionStore;
  ownsStore: boolean;
  tools: readonly AgentTool[];
  mcp: McpConnections | undefined;
}

/** The model a target names, asking for the definition's reasoning level by default. */
export function modelFor(
  options: Pick<AgentHostOptions, "models">,
  definition: AgentDefinition,
  target: ModelTargetSpec,
): Model {
  const model =
    typeof options.models === "function"
      ? options.models(target)
      : createModelForTarget(target, options.models);
  return withDefaultReasoning(model, definition.thinking);
}

/**
 * The app's tools the definition names, in its order (all of them without `tools`), then
 * the tools the agent's tree gives it (sub-agents, router), which it always gets.
 * @throws InvalidHostOptionsError naming `definition.tools[i]` for a tool the app does not offer
 */
export function pickTools(
  definition: AgentDefinition,
  offered: readonly AgentTool[],
  own: readonly AgentTool[] = [],
): AgentTool[] {
  if (definition.tools === undefined) return [...offered, ...own];
  const picked = definition.tools.map((name, index) => {
    const tool = offered.find((candidate) => candidate.name === name);
    if (!tool) {
      const names = offered.map((candidate) => candidate.name).join(", ") || "none";
      throw new InvalidHostOptionsError(
        `definition.tools[${index}]`,
        `no tool named "${name}" is offered by the app (offered: ${names})`,
      );
    }
    return tool;
  });
  return [...picked, ...own];
}

/** Loads the definition's extension files into the runner, each at most once per runner. */
export async function loadDefinitionExtensions(
  runner: ExtensionRunner,
  paths: readonly string[],
): Promise<void> {
  for (const path of paths) {
    if (runner.extensions.some((loaded) => loaded.path === path)) continue;
    await runner.load({ name: basename(path), path, origin: "path" });
  }
}

/** The models without repeats of one provider and id; the first is kept. */
export function dedupe(models: readonly Model[]): Model[] {
  const seen = new Set<string>();
  return models.filter((model) => {
    const key = `${model.info.provider}/${model.info.id}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The agent of one session: the definition's prompt, limits and rules, the app's options. */
export function buildAgent(
  setup: HostSetup,
  session: Session,
  models: readonly Model[],
): AgentSession {
  const { options, definition } = setup;
  const ttsr = new TtsrManager(options.ruleOptions);
  const tools = [...setup.tools, ...(setup.mcp?.tools ?? [])];
  for (const rule of [...(options.rules ?? []), ...(definition.streamRules ?? [])]) {
    ttsr.addRule(rule);
  }
  return new AgentSession({
    summarizeBranch: summarizeBranchWithModel,
    ...setup.agentOptions,
    ...definition.limits,
    targets: models.map((model) => ({ model })),
    session,
    tools: options.checkpoints ? options.checkpoints.bindTools(tools, () => session) : tools,
    ...(definition.systemPrompt !== undefined ? { systemPrompt: definition.systemPrompt } : {}),
    ttsr,
    ...(definition.outputSchema ? { outputSchema: definition.outputSchema } : {}),
    ...(options.extensions ? { extensions: options.extensions } : {}),
    ...(options.projectRoot !== undefined ? { projectRoot: options.projectRoot } : {}),
  });
}
