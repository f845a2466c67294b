import { randomUUID } from "node:crypto";
import { FileSessionStore, type Session } from "@arbor/session-store";
import { openTraceSpan } from "@arbor/turn-runner";
import type { AgentDefinition } from "../definition/index.js";
import { agentIdentity, openAgentPlace } from "./agent-place.js";
import { runPlace } from "./agent-run.js";
import { type AgentNode, hasOrchestration } from "./agent-tree.js";
import { FINAL_ANSWER_CUSTOM_TYPE } from "./child-records.js";
import { runChild } from "./child-run.js";
import { EventChannel } from "./event-channel.js";
import { recordInterruptedChildren } from "./interrupted-children.js";
import { resolveAgentTree } from "./load-agent-tree.js";
import type { AgentOutcome, OrchestrationContext } from "./orchestration-context.js";
import type { OrchestrationEvent } from "./orchestration-events.js";
import type { OrchestrationResult } from "./orchestration-result.js";
import {
  DEFAULT_CHILD_CONCURRENCY,
  DEFAULT_MAX_DEPTH,
  type RunAgentOptions,
} from "./run-agent-options.js";
import { RunScope } from "./run-scope.js";
import { notRunResult } from "./synthetic-result.js";
import { randomNonce } from "./tagged-blocks.js";
import { addUsage } from "./usage-sum.js";

/** A started orchestration: its events, its result, and its controls. */
export interface OrchestrationRun {
  /** Every event from the first, for one reader (subscribed when the run started). */
  readonly events: AsyncIterable<OrchestrationEvent>;
  /** Resolves once the run and every child ended; rejects for a definition that cannot load. */
  readonly result: Promise<OrchestrationResult>;
  /** Another reader of every event from the first. */
  subscribe(): AsyncIterable<OrchestrationEvent>;
  /** Asks every running agent, children included, to finish with one final turn; no new child starts. */
  stop(): void;
  /** Ends every running agent, children included, at once. */
  abort(): void;
}

const isNode = (value: AgentDefinition | AgentNode): value is AgentNode =>
  "definition" in value && "file" in value;

function leafNode(definition: AgentDefinition): AgentNode {
  return {
    definition,
    file: "<inline>",
    advisors: [],
    destinations: [],
    handoff: undefined,
    agents: [],
  };
}

/**
 * Runs an agent with its advisors, router destinations, handoff and sub-agents. Every
 * agent runs through an {@link AgentHost} in a session of its own in one store: the root
 * in a new session (or `sessionId`), each child in a session with `parentSession` and its
 * ancestry, recorded in its parent's tree. The result is the final agent's turn-runner
 * result with the root's run id and session, totals over every run, `finalAgent` and the
 * per-child accounting.
 * @param definition - a loaded agent tree ({@link loadAgentTree}), or a definition (the
 *   files it names are loaded first)
 * @example
 * ```ts
 * const run = runAgent(await loadAgentTree("agents/main.md"), "Plan the release", {
 *   sessionDir: ".arbor/sessions",
 *   models: { providers: { openai: { api: "openai-chat", apiKey } } },
 * });
 * for await (const event of run.events) {
 *   if (event.type === "child_start") console.log("→", event.agentPath);
 *   if (event.type === "text_delta") process.stdout.write(event.delta);
 * }
 * const result = await run.result; // { success, finalAgent, children, usage, cost, … }
 * ```
 */
export function runAgent(
  definition: AgentDefinition | AgentNode,
  prompt: string,
  options: RunAgentOptions,
): OrchestrationRun {
  const channel = new EventChannel<OrchestrationEvent>();
  const events = channel.subscribe();
  const scope = new RunScope();
  let seq = 0;
  const generateRunId = options.agentOptions?.generateRunId ?? (() => randomUUID());
  const context: OrchestrationContext = {
    options,
    store: options.store ?? new FileSessionStore({ root: options.sessionDir as string }),
    maxDepth: options.limits?.depth ?? DEFAULT_MAX_DEPTH,
    concurrency: options.limits?.concurrency ?? DEFAULT_CHILD_CONCURRENCY,
    nonce: options.generateNonce ?? randomNonce,
    cwd: options.cwd ?? "/",
    now: options.agentOptions?.now ?? Date.now,
    originId: "",
    originRunId: generateRunId(),
    generateRunId,
    children: [],
    emit: (event) => {
      if ("runId" in event) channel.push(event);
      else {
        seq += 1;
        channel.push({
          ...event,
          orchestrationId: context.originId,
          orchestrationSeq: seq,
        } as OrchestrationEvent);
      }
    },
    runChild: (parent, node, role, input, forward, callSignal) =>
      runChild(context, parent, node, role, input, forward, callSignal),
  };
  const onAbort = () => scope.abort();
  if (options.signal?.aborted) scope.abort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  const result = orchestrate(context, definition, prompt, scope).finally(() => {
    options.signal?.removeEventListener("abort", onAbort);
    channel.close();
  });
  return {
    events,
    result,
    subscribe: () => channel.subscribe(),
    stop: () => scope.stop(),
    abort: () => scope.abort(),
  };
}

async function orchestrate(
  context: OrchestrationContext,
  definition: AgentDefinition | AgentNode,
  prompt: string,
  scope: RunScope,
): Promise<OrchestrationResult> {
  const { options, store } = context;
  try {
    const node = isNode(definition)
      ? definition
      : hasOrchestration(definition)
        ? await resolveAgentTree(definition)
        : leafNode(definition);
    const tenant = options.tenant !== undefined ? { tenant: options.tenant } : {};
    const span = await openTraceSpan(options.agentOptions?.telemetry, "arbor.orchestration", {
      "arbor.agent.path": node.definition.name,
      "arbor.origin.id": context.originRunId,
    });
    try {
      const result = await orchestrateFrom(context, node, prompt, scope, span.context, tenant);
      span.end({
        ...(result.success ? {} : { error: result.reason }),
        attributes: { "arbor.final_agent": result.finalAgent },
      });
      return result;
    } catch (error) {
      span.end({ error: "error" });
      throw error;
    }
  } finally {
    if (options.store === undefined) await store.close();
  }
}

async function orchestrateFrom(
  context: OrchestrationContext,
  node: AgentNode,
  prompt: string,
  scope: RunScope,
  traceContext: unknown,
  tenant: { tenant?: string },
): Promise<OrchestrationResult> {
  const { options, store } = context;
  const place = await openAgentPlace(
    context,
    node,
    options.sessionId !== undefined
      ? { sessionId: options.sessionId }
      : { create: { cwd: context.cwd, ...tenant } },
    {
      agentPath: node.definition.name,
      runId: context.originRunId,
      parentRunId: undefined,
      depth: 0,
      lineage: [agentIdentity(node)],
      forward: true,
      scope,
      root: true,
      traceContext,
    },
  );
  const session = place.host.session;
  context.originId = session.id;
  try {
    if (options.sessionId !== undefined) {
      await recordInterruptedChildren(session, { store, ...tenant });
    }
    const outcome = await runPlace(context, place, prompt, prompt);
    while (place.running.size > 0) await Promise.allSettled([...place.running]);
    await recordFinalAnswer(session, outcome);
    const own = outcome.own ?? notRunResult("aborted", "the root agent did not run", session);
    const children = context.children.map((child) => ({ ...child, usage: { ...child.usage } }));
    const result = {
      ...outcome.result,
      runId: own.runId,
      session: { id: session.id, location: session.location },
      sessionFile: session.location,
      usage: addUsage(own.usage, ...children.map((child) => child.usage)),
      cost: children.reduce((sum, child) => sum + child.cost, own.cost),
      finalAgent: outcome.finalAgent,
      finalSession: outcome.finalSession,
      children,
      rootUsage: { ...own.usage },
      rootCost: own.cost,
    } as OrchestrationResult;
    context.emit({ type: "orchestration_end", result });
    return result;
  } finally {
    await place.host.close();
  }
}

/**
 * When another agent gave the final answer, the root session keeps it as a hidden custom
 * message, so the root agent knows on the session's next prompt what the user was told.
 */
async function recordFinalAnswer(session: Session, outcome: AgentOutcome): Promise<void> {
  if (outcome.finalSession.id === session.id || !outcome.result.success) return;
  if (outcome.response.trim() === "") return;
  await session.appendCustomMessageEntry(
    FINAL_ANSWER_CUSTOM_TYPE,
    `The answer ${outcome.finalAgent} gave to the request above:\n\n${outcome.response}`,
    false,
    { agent: outcome.finalAgent, session: outcome.finalSession.id },
  );
}
