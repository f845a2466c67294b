import type { AgentHost, ExtensionRunner, SessionChoice } from "@arbor/orchestration";
import { openScenarioHost, type ScenarioHostSetup } from "./scenario-host.js";

/** What the scenario runner drives: the part of {@link AgentHost} a scenario uses. */
export type ScenarioAgent = Pick<
  AgentHost,
  | "prompt"
  | "stop"
  | "abort"
  | "navigate"
  | "fork"
  | "setThinkingLevel"
  | "compact"
  | "runCommand"
  | "close"
  | "session"
  | "commands"
  | "waitForIdle"
  | "setModel"
>;

/**
 * Opens the agent under test through {@link AgentHost}: every scenario, stream-rule budgets
 * (`agent.ttsr`) included, which reach the host as its `ruleOptions`.
 */
export function openScenarioAgent(
  setup: ScenarioHostSetup,
  choice: SessionChoice,
  extensions: ExtensionRunner | undefined,
): Promise<ScenarioAgent> {
  return openScenarioHost(setup, choice, extensions);
}
