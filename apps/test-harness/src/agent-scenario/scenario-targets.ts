import {
  createAnthropicMessagesModel,
  createOpenAIChatModel,
  findModelInfo,
  type Model,
  type ModelInfo,
  type ModelRequest,
  modelInfoSchema,
} from "@arbor/orchestration";
import { FakeProviderServer, SCRIPTED_MODEL_INFO, ScriptedModel } from "@arbor/orchestration/test";
import type { AgentTarget } from "./agent-scenario-schema.js";

/** The models of a scenario's targets, and how often each was called. */
export interface ScenarioModels {
  models: Model[];
  /** Model calls per target so far, in target order. */
  calls(): number[];
  /** The requests a scripted target received; undefined for the adapters' targets. */
  requests(target: number): readonly ModelRequest[] | undefined;
  /** Closes the fake servers. */
  close(): Promise<void>;
}

function targetInfo(target: AgentTarget): ModelInfo {
  const base =
    target.provider === "scripted"
      ? (findModelInfo(target.model) ?? { ...SCRIPTED_MODEL_INFO, id: target.model })
      : (findModelInfo(target.model) ?? {
          ...SCRIPTED_MODEL_INFO,
          id: target.model,
          provider: target.provider,
          api: target.provider === "openai" ? "openai-chat" : "anthropic-messages",
        });
  return modelInfoSchema.parse({
    ...base,
    ...(target.name === undefined ? {} : { provider: target.name }),
    ...(target.contextWindow === undefined ? {} : { contextWindow: target.contextWindow }),
    ...(target.maxOutputTokens === undefined ? {} : { maxOutputTokens: target.maxOutputTokens }),
  });
}

/**
 * Builds one model per target: the scripted model for `scripted`, else the real adapter
 * (official SDK inside) against its own fake server playing the target's turns.
 */
export async function buildScenarioModels(
  targets: readonly AgentTarget[],
): Promise<ScenarioModels> {
  const servers: FakeProviderServer[] = [];
  const counters: Array<() => number> = [];
  const recorded: Array<readonly ModelRequest[] | undefined> = [];
  const models: Model[] = [];
  try {
    for (const target of targets) {
      const info = targetInfo(target);
      if (target.provider === "scripted") {
        const model = new ScriptedModel({ responses: target.turns, info });
        counters.push(() => model.requests.length);
        recorded.push(model.requests);
        models.push(model);
        continue;
      }
      const server = await FakeProviderServer.start({ responses: target.turns });
      servers.push(server);
      counters.push(() => server.requests.length);
      recorded.push(undefined);
      const common = { model: info, apiKey: "arbor-harness", idleTimeoutMs: target.idleTimeoutMs };
      models.push(
        target.provider === "openai"
          ? createOpenAIChatModel({ ...common, baseURL: server.openaiBaseURL })
          : createAnthropicMessagesModel({ ...common, baseURL: server.anthropicBaseURL }),
      );
    }
  } catch (error) {
    await Promise.all(servers.map((server) => server.close()));
    throw error;
  }
  return {
    models,
    calls: () => counters.map((count) => count()),
    requests: (target) => recorded[target],
    close: async () => {
      await Promise.all(servers.map((server) => server.close()));
    },
  };
}
