import type { ExtensionRunner } from "@arbor/extensions-api";
import type { ModelErrorEvent } from "@arbor/providers";
import type { Session, TitleGenerator } from "@arbor/session-store";
import type { TtsrManager } from "@arbor/ttsr";
import type { AgentResource } from "../agent-session-options.js";
import type { AgentTool } from "../agent-tool.js";
import type { CompactionHooks, CompactionSettings } from "../compaction/index.js";
import type { ContextGuardOptions } from "../context-guard.js";
import type { AccountingSink, AncestryOptions } from "../contracts/index.js";
import type { ModelErrorHandling } from "../failover-policy.js";
import type { OutputSchema } from "../final-report.js";
import type { TelemetryOptions } from "../run-trace.js";
import type { ModelTarget } from "../target-pool.js";
import type { ToolOutputOptions } from "../tool-output/apply-tool-output-cap.js";
import type { BranchSummarizer } from "../tree-navigation.js";

/** The sampling knobs of every request; each is sent only when given. */
export interface SamplingOptions {
  temperature?: number;
  topP?: number;
  topK?: number;
  frequencyPenalty?: number;
  presencePenalty?: number;
  seed?: number;
  stop?: readonly string[];
}

/** What the agent is: its models, tools, prompt and the shape of its answer. */
export interface DefinitionOptions {
  /** Provider/model pairs, tried round-robin; never empty. */
  readonly targets: readonly ModelTarget[];
  /** The agent's own tools, as given (before any output cap). */
  readonly tools: readonly AgentTool[];
  readonly toolOutput: ToolOutputOptions | undefined;
  readonly systemPrompt: string | undefined;
  readonly outputSchema: OutputSchema | undefined;
  readonly maxOutputTokens: number | undefined;
  /** Sampling knobs sent with every request (only those given). */
  readonly sampling: Readonly<SamplingOptions>;
  /** Whether requests carry prompt-cache hints. */
  readonly promptCache: boolean;
  /** Whether the built-in `task_status` tool is offered. */
  readonly taskStatusTool: boolean;
}

/** How a run behaves: limits, retries, failover, the context guard and compaction. */
export interface PolicyOptions {
  /** Turns per prompt. */
  readonly maxTurns: number;
  /** Failed attempts per turn retried before the run fails. */
  readonly maxRetries: number;
  /** Synthetic retries per turn for answers that are rejected. */
  readonly maxAnswerRetries: number;
  /** First backoff delay, doubled per failed attempt. */
  readonly retryDelayMs: number;
  /** Upper bound of any wait. */
  readonly maxRetryDelayMs: number;
  /** Whether a `model_error` is retried or its target skipped. */
  readonly classifyModelError: (error: ModelErrorEvent) => ModelErrorHandling;
  /** Default timeout of a tool call. */
  readonly toolTimeoutMs: number;
  /** Tool calls run per turn; the excess is answered with an error result. Unlimited when undefined. */
  readonly maxToolCallsPerTurn: number | undefined;
  /** Per tool name, the text that replaces a failing call's error text. */
  readonly toolFailureOverrides: Readonly<Record<string, string>>;
  readonly contextGuard: ContextGuardOptions;
  readonly compaction: Partial<CompactionSettings> | undefined;
  readonly generateTitle: boolean | TitleGenerator | undefined;
}

/** The session the agent starts in and who closes it. */
export interface SessionOptions {
  /** The session given at construction (a fork later replaces the agent's current one). */
  readonly session: Session;
  /** Whether `shutdown()` closes it. */
  readonly ownsSession: boolean;
  /** Whether stream-rule records of the session are restored into `ttsr`. */
  readonly restoreInjectedRules: boolean;
}

/** Whom the agent talks to besides models: extensions, stream rules, telemetry, resources. */
export interface HostOptions {
  readonly extensions: ExtensionRunner | undefined;
  readonly ttsr: TtsrManager | undefined;
  /** Rule paths in interrupt reminders are shown relative to it. */
  readonly projectRoot: string | undefined;
  readonly telemetry: TelemetryOptions | undefined;
  /** Where the agent's runs sit among the runs of one request (defaults applied per run). */
  readonly ancestry: AncestryOptions | undefined;
  /** Receives each model call's accounting record. */
  readonly accountingSink: AccountingSink | undefined;
  /** Closed by `shutdown()`. */
  readonly resources: readonly AgentResource[];
  readonly compactionHooks: CompactionHooks | undefined;
  readonly summarizeBranch: BranchSummarizer | undefined;
}

/** What tests swap: the clock, the wait and run ids. */
export interface SeamOptions {
  /** Clock, in epoch milliseconds. */
  readonly now: () => number;
  /** Wait; resolves early when the signal fires. */
  readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  /** The id of each run. */
  readonly generateRunId: () => string;
}

/** An agent's options grouped by what they are, defaults applied, frozen. */
export interface AgentOptionGroups {
  readonly definition: DefinitionOptions;
  readonly policy: PolicyOptions;
  readonly session: SessionOptions;
  readonly host: HostOptions;
  readonly seams: SeamOptions;
}
