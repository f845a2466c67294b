import { join } from "node:path";
import type { AgentEvent, AgentResult, AgentTool, SessionChoice } from "@arbor/orchestration";
import {
  FileSessionStore,
  openSessionFile,
  type Session,
  type SessionStore,
} from "@arbor/session-store";
import type { ScenarioResult } from "../scenario/observed-run.js";
import { runObservedScenario } from "../scenario/observed-run.js";
import type { AgentScenario } from "./agent-scenario-schema.js";
import { type AgentObservation, checkAgentExpectations } from "./check-agent-expectations.js";
import { openScenarioAgent, type ScenarioAgent } from "./scenario-agent.js";
import { ExtensionLog, loadScenarioExtensions } from "./scenario-extensions.js";
import { connectScenarioMcpServers } from "./scenario-mcp.js";
import { buildScenarioModels, type ScenarioModels } from "./scenario-targets.js";
import { buildScenarioTools, ToolCallLog } from "./scenario-tools.js";
import { summarizeTree } from "./tree-summary.js";

/** A prompt that has not ended this long after it started is aborted and the scenario fails. */
const PROMPT_DEADLINE_MS = 20_000;

type Action = AgentScenario["prompts"][number]["actions"][number];

interface Harness {
  scenario: AgentScenario;
  models: ScenarioModels;
  tools: ToolCallLog;
  /** Tools of the scenario's MCP servers, connected once for the whole scenario. */
  mcpTools: AgentTool[];
  waits: number[];
  failures: string[];
  /** Where the extensions' events go, when the scenario loads extensions. */
  extensions: ExtensionLog | undefined;
  /** The scenario's temporary directory (the extensions' project directory). */
  dir: string;
}

function sleepSeam(harness: Harness) {
  const real = harness.scenario.agent.waits === "real";
  return (ms: number, signal: AbortSignal): Promise<void> => {
    harness.waits.push(ms);
    if (!real || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener("abort", done, { once: true });
    });
  };
}

/**
 * Opens the agent through the host on the scenario's store: a new session, or (after a
 * reload) the same one again; with extensions, a new runner each time.
 */
async function openAgent(
  harness: Harness,
  store: SessionStore,
  choice: SessionChoice,
): Promise<ScenarioAgent> {
  const config = harness.scenario.agent.extensions;
  const runner =
    config && harness.extensions
      ? await loadScenarioExtensions(config, harness.extensions, harness.dir)
      : undefined;
  return openScenarioAgent(
    {
      agent: harness.scenario.agent,
      store,
      models: harness.models,
      tools: [
        ...buildScenarioTools(harness.scenario.agent.tools, harness.tools),
        ...harness.mcpTools,
      ],
      sleep: sleepSeam(harness),
    },
    choice,
    runner,
  );
}

/** Calls `abort()`, `stop()` or `close()` (the `shutdown` action) on the agent. */
function act(agent: ScenarioAgent, action: Action, failures: string[]): void {
  switch (action.action) {
    case "abort":
      agent.abort();
      return;
    case "stop":
      agent.stop();
      return;
    case "shutdown":
      agent.close().catch((error: unknown) => {
        failures.push(`close() rejected: ${(error as Error).message}`);
      });
      return;
  }
}

type Prompt = AgentScenario["prompts"][number];

/** Does what a prompt asks for before it runs: navigate, fork, set the model and thinking level. */
async function prepare(harness: Harness, agent: ScenarioAgent, prompt: Prompt): Promise<void> {
  if ("navigateTo" in prompt && prompt.navigateTo !== undefined) {
    const target = agent.session.getBranch().at(prompt.navigateTo.pathIndex);
    if (!target)
      throw new Error(`navigateTo: no entry at path index ${prompt.navigateTo.pathIndex}`);
    await agent.navigate(target.id, { summarize: prompt.navigateTo.summarize });
  }
  if ("forkAt" in prompt && prompt.forkAt !== undefined) {
    const target = agent.session.getBranch().at(prompt.forkAt);
    if (!target) throw new Error(`forkAt: no entry at path index ${prompt.forkAt}`);
    await agent.fork(target.id);
  }
  if ("setModel" in prompt && prompt.setModel !== undefined) {
    const model = harness.models.models[prompt.setModel];
    if (!model) throw new Error(`setModel: no target at index ${prompt.setModel}`);
    await agent.setModel(model);
  }
  if ("setThinkingLevel" in prompt && prompt.setThinkingLevel !== undefined) {
    await agent.setThinkingLevel(prompt.setThinkingLevel);
  }
  if ("compact" in prompt && prompt.compact !== undefined) {
    const outcome = await agent.compact(prompt.compact.instructions);
    if (outcome.status === "failed")
      harness.failures.push(`compact() failed: ${String(outcome.error)}`);
  }
  if ("command" in prompt && prompt.command !== undefined) {
    if (!harness.scenario.agent.extensions) {
      throw new Error("command: the scenario loads no extensions");
    }
    // Through the host: text the command returns is sent as the next prompt.
    const { outcome, run } = await agent.runCommand(prompt.command.name, prompt.command.args);
    harness.extensions?.commands.push(outcome);
    await run?.result;
    // A command may start a run (sendUserMessage, triggerTurn); let it end first.
    await agent.waitForIdle();
  }
}

async function runPrompt(
  harness: Harness,
  agent: ScenarioAgent,
  prompt: Prompt,
): Promise<{ result: AgentResult | undefined; events: string[] }> {
  const images = prompt.images.map((image) => ({ type: "image" as const, ...image }));
  const run = agent.prompt(
    prompt.text.repeat(prompt.repeat),
    images.length > 0 ? images : undefined,
  );
  const events: string[] = [];
  const timers: Array<ReturnType<typeof setTimeout>> = [];
  const counters = prompt.actions.map(() => 0);
  const unsubscribe: Array<() => void> = [];
  const startedBefore = harness.tools.started.length;
  for (const action of prompt.actions) {
    if (action.afterToolCalls !== undefined) {
      const wanted = startedBefore + action.afterToolCalls;
      unsubscribe.push(
        harness.tools.onStart((started) => {
          // Acted on after the tool's first await, so the tool is running when it happens.
          if (started === wanted) setImmediate(() => act(agent, action, harness.failures));
        }),
      );
    } else if (action.afterMs !== undefined && action.afterEvents === undefined) {
      timers.push(setTimeout(() => act(agent, action, harness.failures), action.afterMs));
    }
  }
  const deadline = setTimeout(() => {
    harness.failures.push(`the prompt did not end within ${PROMPT_DEADLINE_MS} ms; aborted`);
    agent.abort();
  }, PROMPT_DEADLINE_MS);
  try {
    for await (const event of run.events as AsyncIterable<AgentEvent>) {
      events.push(event.type);
      prompt.actions.forEach((action, i) => {
        if (action.afterEvents === undefined) return;
        if (action.onEvent !== undefined && action.onEvent !== event.type) return;
        counters[i] = (counters[i] ?? 0) + 1;
        if (counters[i] === action.afterEvents) act(agent, action, harness.failures);
      });
    }
    return { result: await run.result, events };
  } catch (error) {
    harness.failures.push(`the run rejected: ${(error as Error).message}`);
    return { result: undefined, events };
  } finally {
    clearTimeout(deadline);
    for (const timer of timers) clearTimeout(timer);
    for (const stop of unsubscribe) stop();
  }
}

/** Closes the host (extensions hear `session_shutdown`, the session is closed). */
async function release(agent: ScenarioAgent, failures: string[]): Promise<void> {
  try {
    await agent.close();
  } catch (error) {
    failures.push(`close() rejected: ${(error as Error).message}`);
  }
}

async function observe(
  scenario: AgentScenario,
  dir: string,
  failures: string[],
): Promise<AgentObservation> {
  const started = performance.now();
  const models = await buildScenarioModels(scenario.agent.targets);
  const mcp =
    scenario.agent.mcpServers.length > 0
      ? await connectScenarioMcpServers(scenario.agent.mcpServers).catch(async (error) => {
          await models.close();
          throw error;
        })
      : undefined;
  const harness: Harness = {
    scenario,
    models,
    tools: new ToolCallLog(),
    mcpTools: mcp?.tools ?? [],
    waits: [],
    failures,
    extensions: scenario.agent.extensions ? new ExtensionLog() : undefined,
    dir,
  };
  const results: AgentResult[] = [];
  const events: string[][] = [];
  const store = new FileSessionStore({ root: join(dir, "sessions"), durability: "never" });
  let agent: ScenarioAgent | undefined;
  let session: Session | undefined;
  try {
    agent = await openAgent(harness, store, { create: { cwd: "/" } });
    for (const prompt of scenario.prompts) {
      if (prompt.reloadBefore) {
        const sessionId = agent.session.id;
        await release(agent, failures);
        agent = await openAgent(harness, store, { sessionId });
      }
      // A fork makes the host continue in a new session of the store.
      await prepare(harness, agent, prompt);
      const outcome = await runPrompt(harness, agent, prompt);
      if (outcome.result) results.push(outcome.result);
      events.push(outcome.events);
    }
    await release(agent, failures);
    // The session is closed; its tree stays readable in memory.
    const inMemory = summarizeTree(agent.session);
    session = await openSessionFile(agent.session.location, { readOnly: true });
    const tree = summarizeTree(session);
    if (JSON.stringify(inMemory) !== JSON.stringify(tree)) {
      failures.push("the tree reopened from the file differs from the tree in memory");
    }
    return {
      results,
      events,
      calls: models.calls(),
      requests: (target) => models.requests(target),
      tools: harness.tools,
      waits: harness.waits,
      tree,
      durationMs: performance.now() - started,
      ...(harness.extensions ? { extensions: harness.extensions } : {}),
    };
  } finally {
    await agent?.close().catch(() => undefined);
    await session?.close().catch(() => undefined);
    await store.close().catch(() => undefined);
    await mcp?.close();
    await models.close();
  }
}

/**
 * Runs an agent scenario: the agent opened through `AgentHost` on a new session of a file
 * store in a temporary directory (see `openScenarioAgent`), prompted in order (with the
 * scripted actions, reloads and forks), then compared with `expect` on the result objects, the tree reopened from the file, the events, the model
 * calls, the tool calls and the waits.
 */
export function runAgentScenario(scenario: AgentScenario, path?: string): Promise<ScenarioResult> {
  const expected = { name: scenario.name, throws: scenario.expect.throws };
  return runObservedScenario(expected, path, "arbor-agent-scenario-", async (dir, failures) => {
    const observation = await observe(scenario, dir, failures);
    failures.push(...checkAgentExpectations(scenario, observation));
    return observation.calls.reduce((sum, count) => sum + count, 0);
  });
}
