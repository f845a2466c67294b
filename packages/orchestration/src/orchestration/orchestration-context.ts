import type { Session, SessionStore } from "@arbor/session-store";
import type { AgentEvent, AgentResult, AgentTool } from "@arbor/turn-runner";
import type { AgentNode } from "./agent-tree.js";
import type { ChildOutcome, ChildRole } from "./child-records.js";
import type { RunEvent } from "./orchestration-events.js";
import type { ChildRun } from "./orchestration-result.js";
import type { RunScope } from "./run-scope.js";
import type { NonceSource } from "./tagged-blocks.js";
import type { TreeOptions } from "./tree-options.js";

/**
 * One agent of a tree as the orchestration drives it: its session, its own run of a prompt
 * (the turn runner's, without orchestration), stop, abort and close. The root is the host's
 * own agent; each child an agent opened for it (see {@link OpenChildAgent}).
 */
export interface PlaceAgent {
  /** The session the agent works in. */
  readonly session: Session;
  /** Runs one prompt on the agent alone. */
  prompt(text: string): { events: AsyncIterable<RunEvent>; result: Promise<AgentResult> };
  stop(): void;
  abort(): void;
  /** Closes what was opened for the agent (nothing for the root: its host owns it). */
  close(): Promise<void>;
}

/** What a child agent of the tree is opened with. */
export interface ChildAgentSpec {
  /** The child's node; its definition is opened as one agent (its own children are tools). */
  node: AgentNode;
  /** The new session's options (`parentSession`, `cwd`, tenant). */
  create: { cwd: string; parentSession: string; tenant?: string };
  /** The tools the orchestration adds: `router__handoff-to`, `agent__<name>`. */
  ownTools: readonly AgentTool[];
  /** The run ancestry of the child's runs. */
  ancestry: { originId: string; parentId: string; agentPath: string };
  /** The id of the child's run (drawn beforehand, so its children can name it). */
  runId: string;
  /** The OpenTelemetry context of its runs (its `arbor.child` span). */
  traceContext: unknown;
}

/** Opens a child agent of the tree (the host layer passes it in). */
export type OpenChildAgent = (spec: ChildAgentSpec) => Promise<PlaceAgent>;

/** What a router's `router__handoff-to` call chose. */
export interface RouterChoice {
  agent: string;
  message: string | undefined;
  toolCallId: string;
}

/** One agent of the run, opened on its session. */
export interface AgentPlace {
  node: AgentNode;
  host: PlaceAgent;
  /** Stop and abort of this agent and everything under it. */
  scope: RunScope;
  /** Agent names from the root, joined by `:`. */
  agentPath: string;
  /** 0 for the root. */
  depth: number;
  /** The id of the agent's own run, drawn before it starts (its children's parent run). */
  runId: string;
  /** The identities (file, or `<inline>:name`) of the agents from the root to this one. */
  lineage: readonly string[];
  /** Whether this agent's turn-runner events go to the orchestration's stream. */
  forward: boolean;
  /**
   * The OpenTelemetry context the agent's runs start in (its `arbor.orchestration` or
   * `arbor.child` span); its children's spans start below it. Undefined without telemetry.
   */
  traceContext: unknown;
  /** Set when the agent, a router, handed the request on. */
  router: { choice: RouterChoice | undefined };
  /** Its child runs still going; the agent's session stays open until they end. */
  readonly running: Set<Promise<unknown>>;
}

/** How an agent's part of the run ended: the answer, who gave it, and its own run. */
export interface AgentOutcome {
  /** The result of the agent that gave the final answer (this one, a destination or a handoff). */
  result: AgentResult;
  finalAgent: string;
  finalSession: { id: string; location: string };
  /** The answer as text (see `responseText`). */
  response: string;
  /** This agent's own run, when it ran. */
  own: AgentResult | undefined;
}

/** How a child's part of the run ended, as its parent records it. */
export interface ChildOutcomeReport extends AgentOutcome {
  outcome: Exclude<ChildOutcome, "running">;
  message: string | undefined;
}

/** What a child is sent: its prompt, and the user's request it serves. */
export interface ChildInput {
  /** The text the child is prompted with. */
  prompt: string;
  /**
   * The user's original request, which the child's own advisors and handoff get; for a
   * sub-agent, its prompt (a new task).
   */
  request: string;
}

/** Starts a child run under `parent` (see `child-run.ts`). */
export type RunChild = (
  parent: AgentPlace,
  node: AgentNode,
  role: ChildRole,
  input: ChildInput,
  forward: boolean,
  /** A sub-agent call's signal: when it fires (the call was cut), the child is aborted. */
  callSignal?: AbortSignal,
) => Promise<ChildOutcomeReport>;

/** What every part of one orchestration shares. */
export interface OrchestrationContext {
  readonly options: TreeOptions;
  readonly store: SessionStore;
  /** Opens a child agent. */
  readonly openChild: OpenChildAgent;
  readonly maxDepth: number;
  readonly concurrency: number;
  readonly nonce: NonceSource;
  readonly cwd: string;
  /** The clock of stored entries. */
  readonly now: () => number;
  /** The root session's id, once it exists. */
  originId: string;
  /** The root run's id (drawn before anything starts): every run's ancestry `originId`. */
  readonly originRunId: string;
  /** Draws a run id (the app's `generateRunId` seam, else a random UUID). */
  readonly generateRunId: () => string;
  /** Every child run, in start order; each is updated when it ends. */
  readonly children: ChildRun[];
  emit(event: OrchestrationEventPayload): void;
  runChild: RunChild;
}

/**
 * An event as the orchestration emits it: an agent's event as it came, the tree's own
 * without the run's id and sequence number, which the run's stream stamps on every event.
 */
export type OrchestrationEventPayload =
  | AgentEvent
  | (RunEvent extends infer E ? (E extends AgentEvent ? never : Omit<E, "runId" | "seq">) : never);
