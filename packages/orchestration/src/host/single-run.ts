import type { AgentRun } from "@arbor/turn-runner";
import type { HostRun, OrchestrationResult } from "../orchestration/index.js";

/**
 * The run of a host's prompt on a single agent: the turn runner's run as it is, its
 * result in the shape of a tree's (the agent answered itself, no children).
 */
export function singleRun(
  run: AgentRun,
  agentPath: string,
  control: { stop(): void; abort(): void },
): HostRun {
  const result = run.result.then(
    (own): OrchestrationResult => ({
      ...own,
      finalAgent: agentPath,
      finalSession: own.session,
      children: [],
      rootUsage: { ...own.usage },
      rootCost: own.cost,
    }),
  );
  // A run whose result nobody reads (its app gave up on it) must not end the process.
  result.catch(() => undefined);
  return {
    runId: run.runId,
    events: run.events,
    result,
    subscribe: (options) => run.subscribe(options),
    stop: () => control.stop(),
    abort: () => control.abort(),
  };
}
