import {
  type CollectedStream,
  collectStream,
  createAnthropicMessagesModel,
  createOpenAIChatModel,
  type Model,
  type ModelMessage,
  type ModelRequest,
  type Usage,
} from "@arbor/orchestration";
import { FakeProviderServer, ScriptedModel } from "@arbor/orchestration/test";
import { runAgentScenario } from "../agent-scenario/run-agent-scenario.js";
import { runOrchestrationScenario } from "../orchestration-scenario/run-orchestration-scenario.js";
import type { ScenarioResult } from "./observed-run.js";
import { type AnyScenario, isAgentScenario, isOrchestrationScenario } from "./scenario-file.js";
import type { Scenario } from "./scenario-schema.js";

export type { ScenarioResult } from "./observed-run.js";

/**
 * Runs a scenario. An agent scenario (version 2) drives an agent through `AgentHost` (see
 * `runAgentScenario`), an orchestration scenario (version 3) runs `runAgent` of
 * `@arbor/orchestration` (see `runOrchestrationScenario`). An adapter-only scenario runs the adapters alone: each prompt is one
 * model call carrying the conversation so far, answered by the next scripted turn through
 * the fake server (or the scripted model), and the collected streams are checked against
 * `expect`.
 */
export async function runScenario(scenario: AnyScenario, path?: string): Promise<ScenarioResult> {
  if (isAgentScenario(scenario)) return runAgentScenario(scenario, path);
  if (isOrchestrationScenario(scenario)) return runOrchestrationScenario(scenario, path);
  return runAdapterScenario(scenario, path);
}

async function runAdapterScenario(scenario: Scenario, path?: string): Promise<ScenarioResult> {
  const started = performance.now();
  const failures: string[] = [];
  const results: CollectedStream[] = [];
  if (scenario.turns.length !== scenario.prompts.length) {
    failures.push(
      `the adapter-only runner makes one call per prompt: got ${scenario.prompts.length} prompt(s) and ${scenario.turns.length} turn(s)`,
    );
  }
  if (scenario.expect.finalReport !== undefined || scenario.expect.sessionTree !== undefined) {
    failures.push(
      "expect.finalReport and expect.sessionTree need the turn-runner, which this runner does not drive yet",
    );
  }
  const server =
    scenario.agent.provider === "scripted"
      ? undefined
      : await FakeProviderServer.start({ responses: scenario.turns });
  try {
    if (failures.length === 0) {
      const model = createModel(scenario, server);
      const messages: ModelMessage[] = [];
      for (const prompt of scenario.prompts) {
        messages.push({ role: "user", content: prompt });
        const request: ModelRequest = {
          messages: [...messages],
          ...(scenario.agent.system === undefined ? {} : { system: scenario.agent.system }),
          ...(scenario.agent.tools.length > 0 ? { tools: scenario.agent.tools } : {}),
          ...(scenario.agent.reasoning === undefined
            ? {}
            : { reasoning: scenario.agent.reasoning }),
          ...(scenario.agent.maxOutputTokens === undefined
            ? {}
            : { maxOutputTokens: scenario.agent.maxOutputTokens }),
        };
        const result = await collectStream(model.stream(request));
        results.push(result);
        if (result.message.content.length > 0) messages.push(result.message);
      }
      failures.push(...checkExpectations(scenario, results));
    }
  } catch (error) {
    failures.push(`threw: ${(error as Error).message}`);
  } finally {
    await server?.close();
  }
  return {
    name: scenario.name,
    path,
    passed: failures.length === 0,
    failures,
    calls: results.length,
    durationMs: performance.now() - started,
  };
}

function createModel(scenario: Scenario, server: FakeProviderServer | undefined): Model {
  const { agent } = scenario;
  if (agent.provider === "scripted" || server === undefined)
    return new ScriptedModel({ responses: scenario.turns });
  const common = {
    model: agent.model,
    apiKey: "arbor-harness",
    idleTimeoutMs: agent.idleTimeoutMs,
  };
  return agent.provider === "openai"
    ? createOpenAIChatModel({ ...common, baseURL: server.openaiBaseURL })
    : createAnthropicMessagesModel({ ...common, baseURL: server.anthropicBaseURL });
}

/** Compares collected streams with a scenario's `expect`; returns one line per mismatch. */
export function checkExpectations(
  scenario: Scenario,
  results: readonly CollectedStream[],
): string[] {
  const expect = scenario.expect;
  const failures: string[] = [];
  const last = results.at(-1);
  const mismatch = (what: string, expected: unknown, actual: unknown) => {
    if (JSON.stringify(expected) !== JSON.stringify(actual)) {
      failures.push(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
    }
  };
  if (expect.calls !== undefined) mismatch("calls", expect.calls, results.length);
  if (expect.text !== undefined) mismatch("text", expect.text, last?.text);
  for (const piece of expect.textContains ?? []) {
    if (!last?.text.includes(piece))
      failures.push(
        `text: expected to contain ${JSON.stringify(piece)}, got ${JSON.stringify(last?.text)}`,
      );
  }
  if (expect.thinking !== undefined) mismatch("thinking", expect.thinking, last?.thinking);
  if (expect.stopReason !== undefined) mismatch("stopReason", expect.stopReason, last?.stopReason);
  if (expect.error !== undefined) {
    const actual = last?.error && {
      kind: last.error.kind,
      ...(expect.error.retryAfterMs === undefined ? {} : { retryAfterMs: last.error.retryAfterMs }),
    };
    mismatch("error", expect.error, actual);
  } else if (last?.error) {
    failures.push(`unexpected error: ${last.error.kind}: ${last.error.message}`);
  }
  if (expect.toolCalls !== undefined) {
    const calls = (last?.message.content ?? []).flatMap((part) =>
      part.type === "toolCall" ? [{ name: part.name, arguments: part.arguments }] : [],
    );
    const projected = calls.map((call, i) =>
      expect.toolCalls?.[i]?.arguments === undefined ? { name: call.name } : call,
    );
    mismatch("toolCalls", expect.toolCalls, projected);
  }
  if (expect.accounting !== undefined) {
    const total: Usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
    for (const result of results) {
      if (!result.usage) continue;
      total.input += result.usage.input;
      total.output += result.usage.output;
      total.cacheRead += result.usage.cacheRead;
      total.cacheWrite += result.usage.cacheWrite;
    }
    const picked = Object.fromEntries(
      Object.keys(expect.accounting).map((key) => [key, total[key as keyof Usage]]),
    );
    mismatch("accounting", expect.accounting, picked);
  }
  if (expect.events !== undefined) mismatch("events", expect.events, collapseEventTypes(results));
  return failures;
}

/** Event types of all calls in order, with runs of the same delta type collapsed to one. */
export function collapseEventTypes(results: readonly CollectedStream[]): string[] {
  const types: string[] = [];
  for (const result of results) {
    for (const event of result.events) {
      if (event.type.endsWith("_delta") && types.at(-1) === event.type) continue;
      types.push(event.type);
    }
  }
  return types;
}
