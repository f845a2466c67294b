import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import {
  type AgentNode,
  loadAgentTree,
  type ModelTargetSpec,
  type OrchestrationRun,
  type RunEvent,
  runAgent,
} from "@arbor/orchestration";
import { FileSessionStore } from "@arbor/session-store";
import { buildScenarioModels, type ScenarioModels } from "../agent-scenario/scenario-targets.js";
import { buildScenarioTools, ToolCallLog } from "../agent-scenario/scenario-tools.js";
import type { ScenarioResult } from "../scenario/observed-run.js";
import { runObservedScenario } from "../scenario/observed-run.js";
import {
  checkOrchestrationExpectations,
  type OrchestrationObservation,
} from "./check-orchestration-expectations.js";
import { crashRun } from "./crash-run.js";
import type { OrchestrationScenario } from "./orchestration-scenario-schema.js";
import { collectSessions } from "./session-trees.js";

/** A run that has not ended this long after it started is aborted and the scenario fails. */
const RUN_DEADLINE_MS = 20_000;

function modelsFunction(ids: readonly string[], models: ScenarioModels) {
  return (target: ModelTargetSpec) => {
    const id = typeof target === "string" ? target : (target.model ?? "");
    const index = ids.indexOf(id);
    const model = models.models[index];
    if (!model) throw new Error(`the scenario has no target "${id}" (targets: ${ids.join(", ")})`);
    return model;
  };
}

function act(run: OrchestrationRun, action: "abort" | "stop"): void {
  if (action === "abort") run.abort();
  else run.stop();
}

async function observe(
  scenario: OrchestrationScenario,
  dir: string,
  failures: string[],
): Promise<OrchestrationObservation> {
  const started = performance.now();
  const agentsDir = join(dir, "agents");
  for (const [name, text] of Object.entries(scenario.agents)) {
    await mkdir(dirname(join(agentsDir, name)), { recursive: true });
    await writeFile(join(agentsDir, name), text);
  }
  const entry = join(agentsDir, scenario.entry ?? Object.keys(scenario.agents)[0] ?? "main.md");
  const tree: AgentNode = await loadAgentTree(entry);
  const sessionsRoot = join(dir, "sessions");
  const crashed = scenario.crash
    ? await crashRun({ agentFile: entry, sessionsRoot, ...scenario.crash })
    : undefined;
  const ids = Object.keys(scenario.targets);
  const models = await buildScenarioModels(Object.values(scenario.targets));
  const tools = new ToolCallLog();
  const store = new FileSessionStore({ root: sessionsRoot, durability: "never" });
  let nonce = 0;
  try {
    const run = runAgent(tree, scenario.prompt, {
      store,
      models: modelsFunction(ids, models),
      tools: buildScenarioTools(scenario.tools, tools),
      limits: scenario.limits,
      generateNonce: () => `nonce${++nonce}`,
      agentOptions: { retryDelayMs: 1, sleep: async () => {} },
      ...(crashed ? { sessionId: crashed.rootSessionId } : {}),
    });
    const timers: Array<ReturnType<typeof setTimeout>> = [];
    for (const action of scenario.actions) {
      if (action.onChildStart === undefined) {
        timers.push(setTimeout(() => act(run, action.action), action.afterMs));
      }
    }
    const deadline = setTimeout(() => {
      failures.push(`the run did not end within ${RUN_DEADLINE_MS} ms; aborted`);
      run.abort();
    }, RUN_DEADLINE_MS);
    const events: RunEvent[] = [];
    let running = 0;
    let maxConcurrentChildren = 0;
    try {
      for await (const event of run.events) {
        events.push(event);
        if (event.type === "child_start" && event.role === "subagent") {
          running += 1;
          maxConcurrentChildren = Math.max(maxConcurrentChildren, running);
        }
        if (event.type === "child_end" && event.role === "subagent") running -= 1;
        if (event.type !== "child_start") continue;
        for (const action of scenario.actions) {
          if (action.onChildStart === event.agentPath) {
            timers.push(setTimeout(() => act(run, action.action), action.afterMs));
          }
        }
      }
    } finally {
      clearTimeout(deadline);
      for (const timer of timers) clearTimeout(timer);
    }
    const result = await run.result;
    const sessions = await collectSessions(
      store,
      result.session.id,
      tree.definition.name,
      failures,
    );
    return {
      result,
      events,
      sessions,
      models,
      modelIds: ids,
      tools,
      maxConcurrentChildren,
      durationMs: performance.now() - started,
    };
  } finally {
    await store.close().catch(() => undefined);
    await models.close();
  }
}

/**
 * Runs an orchestration scenario: its agent files written to a temporary folder and loaded
 * with `loadAgentTree`, one `runAgent` on a file store (after a killed run when the
 * scenario has a `crash`), then compared with `expect` on the result object, every session
 * of the store, the events, the model calls and the tool calls.
 */
export function runOrchestrationScenario(
  scenario: OrchestrationScenario,
  path?: string,
): Promise<ScenarioResult> {
  const expected = { name: scenario.name, throws: scenario.expect.throws };
  return runObservedScenario(
    expected,
    path,
    "arbor-orchestration-scenario-",
    async (dir, failures) => {
      const observation = await observe(scenario, dir, failures);
      failures.push(...checkOrchestrationExpectations(scenario, observation));
      return observation.models.calls().reduce((sum, count) => sum + count, 0);
    },
  );
}
