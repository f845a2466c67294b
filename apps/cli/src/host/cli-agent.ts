import type { AgentDefinition, Model, ModelTargetSpec, ReasoningLevel } from "@arbor/orchestration";
import { createModelForTarget, defineAgent } from "@arbor/orchestration";
import { withConfiguredInfo, withReasoning } from "../agent/model-factory.js";
import type { ArborConfig, ResolvedProvider } from "../config/index.js";
import { modelProvidersOf, modelTargetOf } from "../config/index.js";

/**
 * The agent `arbor` runs: the chosen provider's model and a system prompt made of the
 * config's (or a run's override) and the project's instructions (`AGENTS.md` files); with
 * neither (or only blank text) it sends none, as `arbor` always did.
 */
export function cliAgentDefinition(
  provider: ResolvedProvider,
  config: ArborConfig,
  prompt: { systemPrompt?: string | undefined; context?: string | undefined } = {
    systemPrompt: config.systemPrompt,
  },
): AgentDefinition {
  const parts = [prompt.systemPrompt, prompt.context].filter(
    (part): part is string => part !== undefined && part.trim() !== "",
  );
  const systemPrompt = parts.length > 0 ? parts.join("\n\n") : undefined;
  return defineAgent({
    name: "arbor",
    models: [modelTargetOf(provider)],
    ...(systemPrompt !== undefined ? { systemPrompt } : {}),
  });
}

/**
 * How the host turns the CLI's targets into models: the provider settings the CLI read
 * from its config and environment, each model asking for `thinking()` on every request
 * (the config's or `/thinking`'s level wins over the session's, as it always did in `arbor`).
 */
export function cliModels(
  provider: ResolvedProvider,
  thinking: () => ReasoningLevel,
): (target: ModelTargetSpec) => Model {
  const providers = modelProvidersOf(provider);
  return (target) => withReasoning(configuredModel(provider, providers, target), thinking);
}

/**
 * How the interactive app's host turns targets into models: the provider's real adapter
 * with the config's context window and prices for the model it names.
 */
export function configuredModels(provider: ResolvedProvider): (target: ModelTargetSpec) => Model {
  const providers = modelProvidersOf(provider);
  return (target) => configuredModel(provider, providers, target);
}

function configuredModel(
  provider: ResolvedProvider,
  providers: ReturnType<typeof modelProvidersOf>,
  target: ModelTargetSpec,
): Model {
  const model = createModelForTarget(target, providers);
  const named = target.model ?? provider.model;
  return withConfiguredInfo(model, named === provider.model ? provider.modelInfo : undefined);
}
