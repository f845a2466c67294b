import type {
  ExtensionRunner,
  ExtensionUIProvider,
  SessionStartReason,
} from "@arbor/extensions-api";
import type { Model } from "@arbor/providers";
import type { CreateStoredSessionOptions, SessionStore } from "@arbor/session-store";
import type { TtsrManagerOptions, TtsrRule } from "@arbor/ttsr";
import type { AgentRun, AgentSessionOptions, AgentTool } from "@arbor/turn-runner";
import type { AgentDefinition, ModelTargetSpec } from "../definition/index.js";
import type { ModelProviders } from "../models/index.js";
import type { AgentNode, AgentTreeLimits, NonceSource } from "../orchestration/index.js";
import type { HostCheckpoints } from "./host-checkpoints.js";

/** Which session to work in: an existing one by id, or a new one. */
export type SessionChoice =
  | { sessionId: string; create?: undefined }
  | { create: CreateStoredSessionOptions; sessionId?: undefined };

/** Where the sessions are: a store, or a folder of session files. */
export type StoreChoice =
  | { store: SessionStore; sessionDir?: undefined }
  | { sessionDir: string; store?: undefined };

/**
 * Options of the turn runner the app may set beside the definition: compaction, titles,
 * tool output, the context guard, telemetry, retry timing, the run's ancestry, and the seams.
 */
export type HostAgentOptions = Pick<
  AgentSessionOptions,
  | "ancestry"
  | "compaction"
  | "compactionHooks"
  | "generateTitle"
  | "toolOutput"
  | "contextGuard"
  | "telemetry"
  | "classifyModelError"
  | "retryDelayMs"
  | "maxRetryDelayMs"
  | "summarizeBranch"
  | "now"
  | "sleep"
  | "generateRunId"
>;

/** Options of {@link AgentHost.open}. */
export type AgentHostOptions = StoreChoice &
  SessionChoice & {
    /**
     * What the agent is: a definition, or a loaded agent tree (`loadAgentTree`). A tree —
     * or a definition naming advisors, a router, a handoff or sub-agents, whose files are
     * then loaded (relative paths against the working directory) — runs whole on every
     * prompt: each child in a session of its own in the host's store.
     */
    agent: AgentDefinition | AgentNode;
    /** How far an agent tree's run may go (depth, sub-agent calls at once). */
    limits?: AgentTreeLimits;
    /** The nonce of each tagged prompt block of a tree's run; a seam for tests. */
    generateNonce?: NonceSource;
    /**
     * How model targets become models: provider settings the app filled (API keys, base
     * URLs) for the real adapters, or a function (a test's scripted models).
     */
    models: ModelProviders | ((target: ModelTargetSpec) => Model);
    /** The tools the app offers; the definition's `tools` picks among them by name. */
    tools?: readonly AgentTool[];
    /** Extensions; the host drives their session lifecycle and loads the definition's. */
    extensions?: ExtensionRunner;
    /**
     * How extensions talk to the user (`ctx.ui`): the terminal app's dialogs, a test's
     * `ScriptedExtensionUI`. Bound into `extensions` at open;
     * without it, requests resolve to no answer (`ctx.hasUI` is false) unless the app bound
     * one into the runner itself.
     */
    ui?: ExtensionUIProvider;
    /** The app's stream rules, added before the definition's own. */
    rules?: readonly TtsrRule[];
    /** The stream-rule manager's policy (repeat defaults, interrupt budgets, silencing). */
    ruleOptions?: Omit<TtsrManagerOptions, "turn">;
    /** Rule paths in interrupt reminders are shown relative to this folder. */
    projectRoot?: string;
    /** The tenant sessions are opened and created for. */
    tenant?: string;
    /** The `session_start` reason; default `startup` for a new session, `resume` for an opened one. */
    startReason?: SessionStartReason;
    /**
     * Listens to every run extensions start, from the first `session_start` on (a run a
     * `session_start` handler starts happens inside `open`, before `host.onRun` could be called).
     */
    onRun?: (run: AgentRun) => void;
    /** Turn-runner options beside the definition. */
    agentOptions?: HostAgentOptions;
    /**
     * The workspace's checkpoints (`sessionCheckpoints` of `@arbor/workspace`): the writing
     * tools of every session the host takes up record `arbor.checkpoint` entries, and
     * {@link AgentHost.rewind} can bring the files back. Not passed to a tree's children.
     */
    checkpoints?: HostCheckpoints;
  };
