import type { OrchestrationResult, RunEvent } from "@arbor/orchestration";
import {
  checkRequest,
  checkResult,
  checkTree,
  mismatchInto,
} from "../agent-scenario/check-agent-expectations.js";
import type { ScenarioModels } from "../agent-scenario/scenario-targets.js";
import type { ToolCallLog } from "../agent-scenario/scenario-tools.js";
import type { OrchestrationScenario } from "./orchestration-scenario-schema.js";
import type { ObservedSession } from "./session-trees.js";

/** What running an orchestration scenario observed, before it is compared with `expect`. */
export interface OrchestrationObservation {
  result: OrchestrationResult;
  events: RunEvent[];
  sessions: Map<string, ObservedSession>;
  models: ScenarioModels;
  /** Model ids in target order. */
  modelIds: string[];
  tools: ToolCallLog;
  maxConcurrentChildren: number;
  durationMs: number;
}

const sorted = (items: readonly string[]) => [...items].sort();

/** What every orchestration stream must show: each child starts before it ends, one end event last. */
function checkStream(observed: OrchestrationObservation, failures: string[]): void {
  const { events, result } = observed;
  const started = new Set<string>();
  for (const event of events) {
    if (event.type === "child_start") started.add(event.childSessionId);
    if (event.type === "child_end" && !started.has(event.childSessionId))
      failures.push(`events: child_end of ${event.agentPath} before its child_start`);
  }
  if (events.at(-1)?.type !== "orchestration_end")
    failures.push("events: the stream does not end with orchestration_end");
  const ended = events.filter((event) => event.type === "child_end");
  if (ended.length !== result.children.length)
    failures.push(
      `events: ${ended.length} child_end event(s) for ${result.children.length} child run(s)`,
    );
}

/** Compares what an orchestration scenario observed with its `expect`; one line per mismatch. */
export function checkOrchestrationExpectations(
  scenario: OrchestrationScenario,
  observed: OrchestrationObservation,
): string[] {
  const { expect } = scenario;
  const failures: string[] = [];
  const mismatch = mismatchInto(failures);
  checkStream(observed, failures);
  const { result } = observed;
  if (expect.result !== undefined) {
    const { finalAgent, ...rest } = expect.result;
    checkResult("result", rest, result, mismatch, failures);
    if (finalAgent !== undefined) mismatch("result.finalAgent", finalAgent, result.finalAgent);
  }
  if (expect.children !== undefined) {
    const children = result.children.map(
      (child) => `${child.agentPath} ${child.role} ${child.outcome}`,
    );
    mismatch("result.children", sorted(expect.children), sorted(children));
  }
  if (expect.sessions !== undefined) {
    mismatch(
      "sessions",
      sorted(Object.keys(expect.sessions)),
      sorted([...observed.sessions.keys()]),
    );
    for (const [key, expected] of Object.entries(expect.sessions)) {
      const session = observed.sessions.get(key);
      if (!session) continue;
      const { children, ...tree } = expected;
      const before = failures.length;
      checkTree(tree, session.tree, mismatch, failures);
      if (children !== undefined) mismatch("children", sorted(children), session.children);
      for (let i = before; i < failures.length; i++)
        failures[i] = `sessions[${key}].${failures[i]}`;
    }
  }
  if (expect.childEvents !== undefined) {
    const own = observed.events.flatMap((event) => {
      if (event.type === "child_start") return [`child_start ${event.agentPath}`];
      if (event.type === "child_end") return [`child_end ${event.agentPath} ${event.outcome}`];
      return [];
    });
    mismatch("childEvents", sorted(expect.childEvents), sorted(own));
  }
  const types = new Set<string>(observed.events.map((event) => event.type));
  for (const type of expect.eventsInclude ?? []) {
    if (!types.has(type)) failures.push(`events: expected a ${type} event, got none`);
  }
  for (const type of expect.eventsExclude ?? []) {
    if (types.has(type)) failures.push(`events: expected no ${type} event, got one`);
  }
  if (expect.calls !== undefined) {
    const counts = observed.models.calls();
    const actual = Object.fromEntries(
      Object.keys(expect.calls).map((id) => [id, counts[observed.modelIds.indexOf(id)]]),
    );
    mismatch("calls", expect.calls, actual);
  }
  for (const request of expect.requests ?? []) {
    const { model, ...rest } = request;
    const target = observed.modelIds.indexOf(model);
    if (target < 0) {
      failures.push(`requests: the scenario has no target "${model}"`);
      continue;
    }
    const before = failures.length;
    checkRequest({ ...rest, target }, observed.models, mismatch, failures);
    for (let i = before; i < failures.length; i++) failures[i] = `${model}: ${failures[i]}`;
  }
  if (expect.toolCalls !== undefined) {
    const withArgs = expect.toolCalls.some((call) => call.includes("("));
    const started = withArgs
      ? observed.tools.started
      : observed.tools.started.map((call) => call.slice(0, call.indexOf("(")));
    mismatch("toolCalls", expect.toolCalls, started);
  }
  if (expect.maxConcurrentChildren !== undefined) {
    mismatch("maxConcurrentChildren", expect.maxConcurrentChildren, observed.maxConcurrentChildren);
  }
  if (expect.maxDurationMs !== undefined && observed.durationMs > expect.maxDurationMs) {
    failures.push(
      `duration: expected at most ${expect.maxDurationMs} ms, took ${observed.durationMs.toFixed(0)} ms`,
    );
  }
  return failures;
}
