import type { ExtensionRunner, TtsrRule } from "@arbor/orchestration";
import {
  type AgentDefinition,
  AgentHost,
  type AgentHostOptions,
  type AgentTool,
  defineAgent,
  type HostAgentOptions,
  type SessionChoice,
  summarizeBranchWithModel,
} from "@arbor/orchestration";
import type { SessionStore } from "@arbor/session-store";
import type { AgentConfig } from "./agent-scenario-schema.js";
import type { ScenarioModels } from "./scenario-targets.js";

/** The provider name of the definition's targets; the model id is the target's index. */
const TARGET_PROVIDER = "scenario";

/** `agent.options` keys that are limits of the definition. */
const DEFINITION_LIMIT_KEYS = new Set<string>([
  "maxTurns",
  "maxRetries",
  "maxAnswerRetries",
  "toolTimeoutMs",
  "maxOutputTokens",
  "temperature",
]);

/** `agent.options` keys the host takes as turn-runner options beside the definition. */
const HOST_AGENT_OPTION_KEYS = new Set<string>([
  "compaction",
  "compactionHooks",
  "generateTitle",
  "toolOutput",
  "contextGuard",
  "telemetry",
  "classifyModelError",
  "retryDelayMs",
  "maxRetryDelayMs",
  "summarizeBranch",
  "now",
  "sleep",
  "generateRunId",
]);

/**
 * The definition of the agent under test: its system prompt, one target per scenario target
 * (`scenario/<index>`), its loop limits (`agent.limits` and the limit keys of
 * `agent.options`) and output schema.
 * A scenario without a system prompt gives a definition without one: the model gets none.
 */
export function scenarioDefinition(agent: AgentConfig): AgentDefinition {
  const { maxTurns, maxRetries, toolTimeoutMs, maxOutputTokens } = agent.limits;
  const optionLimits = Object.entries(agent.options).filter(([key]) =>
    DEFINITION_LIMIT_KEYS.has(key),
  );
  const limits = Object.fromEntries(
    [
      ...Object.entries({ maxTurns, maxRetries, toolTimeoutMs, maxOutputTokens }),
      ...optionLimits,
    ].filter(([, value]) => value !== undefined),
  );
  const outputSchema = agent.options.outputSchema as Record<string, unknown> | undefined;
  return defineAgent({
    name: "scenario-agent",
    ...(agent.system === undefined ? {} : { systemPrompt: agent.system }),
    models: agent.targets.map((_, index) => ({ provider: TARGET_PROVIDER, model: String(index) })),
    ...(Object.keys(limits).length > 0 ? { limits } : {}),
    ...(outputSchema === undefined ? {} : { outputSchema }),
  });
}

/**
 * The turn-runner options of the scenario the host takes beside the definition: retry
 * timing, `agent.options`, the branch summarizer and the sleep seam.
 * @throws Error naming `agent.options.<key>` for an option the host does not take
 */
export function scenarioAgentOptions(
  agent: AgentConfig,
  sleep: NonNullable<HostAgentOptions["sleep"]>,
): HostAgentOptions {
  const passed: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(agent.options)) {
    if (key === "outputSchema" || DEFINITION_LIMIT_KEYS.has(key)) continue;
    if (!HOST_AGENT_OPTION_KEYS.has(key)) {
      throw new Error(`agent.options.${key}: the agent host does not take this option`);
    }
    passed[key] = value;
  }
  const { retryDelayMs, maxRetryDelayMs } = agent.limits;
  return {
    ...(retryDelayMs === undefined ? {} : { retryDelayMs }),
    ...(maxRetryDelayMs === undefined ? {} : { maxRetryDelayMs }),
    ...(passed as HostAgentOptions),
    // Without `branchSummaries: model` there is no summarizer, as the scenario asks.
    summarizeBranch: agent.branchSummaries === "model" ? summarizeBranchWithModel : undefined,
    sleep,
  };
}

/** What the runner hands over to open the agent of a scenario on a session of its store. */
export interface ScenarioHostSetup {
  agent: AgentConfig;
  store: SessionStore;
  models: ScenarioModels;
  tools: readonly AgentTool[];
  sleep: NonNullable<HostAgentOptions["sleep"]>;
}

/**
 * Opens the agent under test through {@link AgentHost}: a new session (`startup`) or the
 * scenario's session again after a reload (`resume`), with a fresh extension runner each
 * time. Waits for a run a `session_start` handler started before returning.
 */
export async function openScenarioHost(
  setup: ScenarioHostSetup,
  choice: SessionChoice,
  extensions: ExtensionRunner | undefined,
): Promise<AgentHost> {
  const { agent, models } = setup;
  const options = {
    store: setup.store,
    ...choice,
    agent: scenarioDefinition(agent),
    models: (target: { provider: string; model?: string }) => {
      const model = models.models[Number(target.model)];
      if (target.provider !== TARGET_PROVIDER || !model) {
        throw new Error(`the scenario has no target ${target.provider}/${target.model}`);
      }
      return model;
    },
    tools: setup.tools,
    ...(agent.rules.length > 0
      ? { rules: agent.rules as unknown as TtsrRule[], projectRoot: "/" }
      : {}),
    ...(extensions ? { extensions } : {}),
    ruleOptions: agent.ttsr,
    agentOptions: scenarioAgentOptions(agent, setup.sleep),
  } as AgentHostOptions;
  const host = await AgentHost.open(options);
  // A run a session_start handler started (sendUserMessage, triggerTurn) ends first.
  await host.waitForIdle();
  return host;
}
