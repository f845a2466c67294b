import type { Session, SessionStore } from "@arbor/session-store";
import { type AgentTool, openTraceSpan } from "@arbor/turn-runner";
import { agentIdentity, agentPlace, orchestrationTools } from "./agent-place.js";
import { runPlace } from "./agent-run.js";
import type { AgentNode } from "./agent-tree.js";
import { FINAL_ANSWER_CUSTOM_TYPE } from "./child-records.js";
import { runChild } from "./child-run.js";
import type { HostRun } from "./host-run.js";
import { recordInterruptedChildren } from "./interrupted-children.js";
import type {
  AgentOutcome,
  AgentPlace,
  OpenChildAgent,
  OrchestrationContext,
  PlaceAgent,
} from "./orchestration-context.js";
import type { RunEvent } from "./orchestration-events.js";
import type { OrchestrationResult } from "./orchestration-result.js";
import { RunEventLog } from "./run-event-log.js";
import { RunScope } from "./run-scope.js";
import { notRunResult } from "./synthetic-result.js";
import { randomNonce } from "./tagged-blocks.js";
import { DEFAULT_CHILD_CONCURRENCY, DEFAULT_MAX_DEPTH, type TreeOptions } from "./tree-options.js";
import { addUsage } from "./usage-sum.js";

/** What one prompt on an agent tree starts with. */
export interface TreeRunStart {
  /** The root agent (the host's own). */
  root: PlaceAgent;
  prompt: string;
  /** The root agent's run id, drawn by the host: the run's `runId`. */
  runId: string;
  /** The ancestry origin of every run of the tree: the app's, else `runId`. */
  originId: string;
  /** The root's agent path. */
  agentPath: string;
  /** The store child sessions are created in. */
  store: SessionStore;
  /** The working directory recorded in child sessions. */
  cwd: string;
  /** Draws the run ids of children. */
  generateRunId: () => string;
  /** The clock of stored entries. */
  now: () => number;
}

/**
 * An agent tree on a host: the root's orchestration tools (made once, for every prompt)
 * and the runs of its prompts, one at a time, each with its advisors, router destinations,
 * handoff and sub-agents in child sessions of the host's store.
 */
export class AgentTree {
  /** The tools the root agent gets: `router__handoff-to`, `agent__<name>`. */
  readonly rootTools: readonly AgentTool[];
  #active: { context: OrchestrationContext; place: AgentPlace } | undefined;
  readonly #concurrency: number;

  /**
   * @param node - the loaded tree
   * @param options - limits, tenant, telemetry, seams
   * @param openChild - opens each child agent (the host layer's)
   */
  constructor(
    readonly node: AgentNode,
    private readonly options: TreeOptions,
    private readonly openChild: OpenChildAgent,
  ) {
    this.#concurrency = options.limits?.concurrency ?? DEFAULT_CHILD_CONCURRENCY;
    this.rootTools = orchestrationTools(
      node,
      this.#concurrency,
      () => this.#current().context,
      () => this.#current().place,
    );
  }

  /** The OpenTelemetry context of the prompt under way (its `arbor.orchestration` span). */
  get traceContext(): unknown {
    return this.#active?.place.traceContext;
  }

  /** Whether a prompt of the tree runs now. */
  get running(): boolean {
    return this.#active !== undefined;
  }

  /** Starts a prompt on the tree; its result resolves once every child ended. */
  start(start: TreeRunStart): HostRun {
    const log = new RunEventLog<RunEvent>();
    const events = log.subscribe();
    const scope = new RunScope();
    const context: OrchestrationContext = {
      options: this.options,
      store: start.store,
      openChild: this.openChild,
      maxDepth: this.options.limits?.depth ?? DEFAULT_MAX_DEPTH,
      concurrency: this.#concurrency,
      nonce: this.options.generateNonce ?? randomNonce,
      cwd: start.cwd,
      now: start.now,
      originId: start.root.session.id,
      originRunId: start.originId,
      generateRunId: start.generateRunId,
      children: [],
      // One sequence over the whole tree: each agent's own run and seq stay in `ancestry`.
      emit: (event) => log.push({ ...event, runId: start.runId, seq: log.lastSeq + 1 } as RunEvent),
      runChild: (parent, node, role, input, forward, callSignal) =>
        runChild(context, parent, node, role, input, forward, callSignal),
    };
    const place = agentPlace(this.node, start.root, {
      agentPath: start.agentPath,
      runId: start.runId,
      depth: 0,
      lineage: [agentIdentity(this.node)],
      forward: true,
      scope,
      traceContext: undefined,
    });
    this.#active = { context, place };
    const result = this.#run(context, place, start).finally(() => {
      this.#active = undefined;
      log.close();
    });
    // A run whose result nobody reads (its app gave up on it) must not end the process.
    result.catch(() => undefined);
    return {
      runId: start.runId,
      events,
      result,
      subscribe: (options) => log.subscribe(options),
      stop: () => scope.stop(),
      abort: () => scope.abort(),
    };
  }

  /** Stops the prompt under way, children included; false when none runs. */
  stop(): boolean {
    this.#active?.place.scope.stop();
    return this.#active !== undefined;
  }

  /** Aborts the prompt under way, children included; false when none runs. */
  abort(): boolean {
    this.#active?.place.scope.abort();
    return this.#active !== undefined;
  }

  #current(): { context: OrchestrationContext; place: AgentPlace } {
    if (!this.#active) {
      throw new Error(
        "sub-agents and handoffs run only within a prompt of the agent's host (AgentHost.prompt)",
      );
    }
    return this.#active;
  }

  async #run(
    context: OrchestrationContext,
    place: AgentPlace,
    start: TreeRunStart,
  ): Promise<OrchestrationResult> {
    const session = start.root.session;
    const tenant = this.options.tenant !== undefined ? { tenant: this.options.tenant } : {};
    const span = await openTraceSpan(this.options.telemetry, "arbor.orchestration", {
      "arbor.agent.path": start.agentPath,
      "arbor.origin.id": start.originId,
    });
    place.traceContext = span.context;
    try {
      // A child left `running` by a process that died is recorded as interrupted first.
      await recordInterruptedChildren(session, { store: start.store, ...tenant });
      const outcome = await runPlace(context, place, start.prompt, start.prompt);
      while (place.running.size > 0) await Promise.allSettled([...place.running]);
      await recordFinalAnswer(session, outcome);
      const result = resultOf(context, outcome, session);
      context.emit({ type: "orchestration_end", result });
      span.end({
        ...(result.success ? {} : { error: result.reason }),
        attributes: { "arbor.final_agent": result.finalAgent },
      });
      return result;
    } catch (error) {
      span.end({ error: "error" });
      throw error;
    }
  }
}

/** The final agent's result with the root's run and session, totals over every run. */
function resultOf(
  context: OrchestrationContext,
  outcome: AgentOutcome,
  session: Session,
): OrchestrationResult {
  const own = outcome.own ?? notRunResult("aborted", "the root agent did not run", session);
  const children = context.children.map((child) => ({ ...child, usage: { ...child.usage } }));
  return {
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
