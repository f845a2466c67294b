import { type AgentResult, openTraceSpan } from "@arbor/turn-runner";
import { ChildRunRefusedError } from "../errors/index.js";
import { agentIdentity, openChildPlace } from "./agent-place.js";
import { runPlace } from "./agent-run.js";
import type { AgentNode } from "./agent-tree.js";
import {
  ANCESTRY_CUSTOM_TYPE,
  type AncestryEntry,
  CHILD_SESSION_CUSTOM_TYPE,
  type ChildRole,
  type ChildSessionEntry,
} from "./child-records.js";
import type {
  AgentOutcome,
  AgentPlace,
  ChildInput,
  ChildOutcomeReport,
  OrchestrationContext,
} from "./orchestration-context.js";
import type { ChildRun } from "./orchestration-result.js";
import { notRunResult } from "./synthetic-result.js";
import { NO_USAGE } from "./usage-sum.js";

/**
 * Runs a child agent in a session of its own, created in the run's store with
 * `parentSession` set: the child's first entry records its ancestry (origin, parent, agent
 * path); the parent's tree gets a child entry with outcome `running` before it starts and
 * one with its outcome (and its own usage and cost) when it ends, and the stream
 * `child_start` / `child_end`. A stop or abort of the parent reaches it; its `timeoutMs`
 * aborts it (`timed_out`).
 * @throws ChildRunRefusedError before anything is created: depth limit, cycle, stopped or aborted
 */
export async function runChild(
  context: OrchestrationContext,
  parent: AgentPlace,
  node: AgentNode,
  role: ChildRole,
  input: ChildInput,
  forward: boolean,
  callSignal?: AbortSignal,
): Promise<ChildOutcomeReport> {
  const agent = node.definition.name;
  const agentPath = `${parent.agentPath}:${agent}`;
  refuseWhenNeeded(context, parent, node, agentPath);
  const scope = parent.scope.child();
  const span = await openTraceSpan(
    { ...context.options.telemetry, parentContext: parent.traceContext },
    "arbor.child",
    { "arbor.agent.path": agentPath, "arbor.child.role": role, "arbor.parent.id": parent.runId },
  );
  let place: AgentPlace;
  try {
    place = await openChildPlace(context, node, parent, {
      agentPath,
      runId: context.generateRunId(),
      depth: parent.depth + 1,
      lineage: [...parent.lineage, agentIdentity(node)],
      forward,
      scope,
      traceContext: span.context,
    });
  } catch (error) {
    scope.release();
    span.end({ error: "not_started" });
    throw error;
  }
  const sessionId = place.host.session.id;
  const work = runOpened(context, parent, place, role, input, callSignal).then(
    (report) => {
      const ok = report.outcome === "succeeded";
      span.end({
        ...(ok ? {} : { error: report.outcome }),
        attributes: { "arbor.child.outcome": report.outcome, "arbor.session.id": sessionId },
      });
      return report;
    },
    (error: unknown) => {
      span.end({ error: "error" });
      throw error;
    },
  );
  parent.running.add(work);
  try {
    return await work;
  } finally {
    parent.running.delete(work);
  }
}

function refuseWhenNeeded(
  context: OrchestrationContext,
  parent: AgentPlace,
  node: AgentNode,
  agentPath: string,
): void {
  if (parent.scope.aborted)
    throw new ChildRunRefusedError("aborted", agentPath, "the run was aborted");
  if (parent.scope.stopped)
    throw new ChildRunRefusedError("stopped", agentPath, "the run was stopped");
  if (parent.depth + 1 > context.maxDepth) {
    throw new ChildRunRefusedError(
      "depth_limit",
      agentPath,
      `the depth limit (${context.maxDepth}) is reached; ${parent.agentPath} may not start another agent`,
    );
  }
  if (parent.lineage.includes(agentIdentity(node))) {
    throw new ChildRunRefusedError(
      "cycle",
      agentPath,
      `${node.definition.name} is already running above it (${parent.agentPath}); an agent may not start itself through its ancestors`,
    );
  }
}

async function runOpened(
  context: OrchestrationContext,
  parent: AgentPlace,
  place: AgentPlace,
  role: ChildRole,
  input: ChildInput,
  callSignal: AbortSignal | undefined,
): Promise<ChildOutcomeReport> {
  const childSession = place.host.session;
  const parentSession = parent.host.session;
  const agent = place.node.definition.name;
  const { agentPath, scope } = place;
  const base = {
    childSessionId: childSession.id,
    parentSessionId: parentSession.id,
    childRunId: place.runId,
    parentRunId: parent.runId,
    role,
    agent,
    agentPath,
  };
  const record: ChildRun = {
    sessionId: childSession.id,
    location: childSession.location,
    parentId: parentSession.id,
    role,
    agent,
    agentPath,
    outcome: "running",
    usage: { ...NO_USAGE },
    cost: 0,
  };
  let timedOut = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const onCallCut = () => {
    // A stop reaches the child through its scope; only an abort or a timeout cuts it.
    if (!parent.scope.stopped) scope.abort();
  };
  let outcome: AgentOutcome | undefined;
  let failure: string | undefined;
  try {
    const ancestry: AncestryEntry = {
      originId: context.originId,
      parentId: parentSession.id,
      agentPath,
      role,
      agent,
      file: place.node.file,
      originRunId: context.originRunId,
      runId: place.runId,
      parentRunId: parent.runId,
    };
    await childSession.appendCustomEntry(ANCESTRY_CUSTOM_TYPE, ancestry);
    const running: ChildSessionEntry = { ...entryFields(base), outcome: "running" };
    await parentSession.appendCustomEntry(CHILD_SESSION_CUSTOM_TYPE, running);
    context.children.push(record);
    context.emit({ type: "child_start", ...base });
    const timeoutMs = place.node.definition.timeoutMs;
    if (timeoutMs !== undefined) {
      timer = setTimeout(() => {
        timedOut = true;
        scope.abort();
      }, timeoutMs);
    }
    if (callSignal?.aborted) onCallCut();
    callSignal?.addEventListener("abort", onCallCut, { once: true });
    outcome = await runPlace(context, place, input.prompt, input.request);
  } catch (error) {
    failure = error instanceof Error ? error.message : String(error);
  } finally {
    clearTimeout(timer);
    callSignal?.removeEventListener("abort", onCallCut);
  }
  // Its own children end before its session closes (a stopped agent may finish first).
  while (place.running.size > 0) await Promise.allSettled([...place.running]);
  const report = reportOf(place, outcome, failure, timedOut, place.node.definition.timeoutMs);
  const own: AgentResult | undefined = outcome?.own;
  record.outcome = report.outcome;
  if (report.message !== undefined) record.message = report.message;
  record.usage = own ? { ...own.usage } : { ...NO_USAGE };
  record.cost = own?.cost ?? 0;
  const ended: ChildSessionEntry = {
    ...entryFields(base),
    outcome: report.outcome,
    ...(report.message !== undefined ? { message: report.message } : {}),
    usage: record.usage,
    cost: record.cost,
  };
  const closing: Promise<unknown>[] = [
    parentSession.appendCustomEntry(CHILD_SESSION_CUSTOM_TYPE, ended),
  ];
  context.emit({
    type: "child_end",
    ...base,
    outcome: report.outcome,
    ...(report.message !== undefined ? { message: report.message } : {}),
    usage: record.usage,
    cost: record.cost,
  });
  closing.push(place.host.close());
  scope.release();
  const settled = await Promise.allSettled(closing);
  const broken = settled.find((entry) => entry.status === "rejected");
  if (broken) throw (broken as PromiseRejectedResult).reason;
  return report;
}

/** What the parent's child entry holds of a child's identity. */
function entryFields(base: {
  childSessionId: string;
  role: ChildRole;
  agent: string;
  agentPath: string;
}): Pick<ChildSessionEntry, "childSessionId" | "role" | "agent" | "agentPath"> {
  const { childSessionId, role, agent, agentPath } = base;
  return { childSessionId, role, agent, agentPath };
}

function reportOf(
  place: AgentPlace,
  outcome: AgentOutcome | undefined,
  failure: string | undefined,
  timedOut: boolean,
  timeoutMs: number | undefined,
): ChildOutcomeReport {
  if (!outcome) {
    const result = notRunResult("aborted", failure ?? "the child run failed", place.host.session);
    return {
      result,
      finalAgent: place.agentPath,
      finalSession: result.session,
      response: "",
      own: undefined,
      outcome: "failed",
      message: failure ?? "the child run failed",
    };
  }
  const { result } = outcome;
  if (timedOut) {
    return {
      ...outcome,
      outcome: "timed_out",
      message: `no answer within ${timeoutMs} ms (timeoutMs)`,
    };
  }
  if (result.success) return { ...outcome, outcome: "succeeded", message: undefined };
  const aborted = result.reason === "aborted" || result.reason === "shutdown";
  return {
    ...outcome,
    outcome: aborted ? "aborted" : "failed",
    message: `${result.reason}: ${result.message}`,
  };
}
