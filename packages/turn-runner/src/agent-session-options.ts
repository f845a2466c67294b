import type { ExtensionRunner } from "@arbor/extensions-api";
import type { ModelErrorEvent } from "@arbor/providers";
import type { Session, TitleGenerator } from "@arbor/session-store";
import type { TtsrManager } from "@arbor/ttsr";
import type { AgentTool } from "./agent-tool.js";
import type { CompactionHooks, CompactionSettings } from "./compaction/index.js";
import type { ContextGuardOptions } from "./context-guard.js";
import type { AccountingSink, AncestryOptions } from "./contracts/index.js";
import type { ModelErrorHandling } from "./failover-policy.js";
import type { OutputSchema } from "./final-report.js";
import type { TelemetryOptions } from "./run-trace.js";
import type { ModelTarget } from "./target-pool.js";
import type { ToolOutputOptions } from "./tool-output/apply-tool-output-cap.js";
import type { BranchSummarizer } from "./tree-navigation.js";

/** Something the agent closes on `shutdown()`, such as an MCP connection. */
export interface AgentResource {
  close(): void | Promise<void>;
}

/** Options of {@link AgentSession}. */
export interface AgentSessionOptions {
  /** Provider/model pairs, tried round-robin; at least one. */
  targets: readonly ModelTarget[];
  /** Where every step is persisted; the context of each turn is rebuilt from it. */
  session: Session;
  tools?: readonly AgentTool[];
  /**
   * Caps every tool's output: text over `maxChars` (default 20,000) is stored in a file
   * under `dir` (default a temporary directory per session) and replaced by its head and a
   * handle, and the `read_tool_output` tool pages through it. No cap when absent.
   */
  toolOutput?: ToolOutputOptions;
  systemPrompt?: string;
  /**
   * Extensions: the agent emits their events at the documented moments, honours what the
   * handlers return, offers their tools to the model and binds itself as their host.
   * Drive the session lifecycle, commands and tree navigation through `agent.extensions`.
   */
  extensions?: ExtensionRunner;
  /** Stream rules: every delta is checked, and a match interrupts and retries the turn. */
  ttsr?: TtsrManager;
  /**
   * Restore the `ttsr_injection` records of the session into `ttsr` (and set its turn to
   * the turns already answered), so the repeat policy and budgets continue across a
   * reload. Pass false when the manager was restored already. Default true.
   */
  restoreInjectedRules?: boolean;
  /** Rule paths in interrupt reminders are shown relative to this directory. */
  projectRoot?: string;
  /** Turns per prompt before the run fails with `max_turns`. Default 20. */
  maxTurns?: number;
  /** Failed attempts per turn retried before the run fails. Default 3. */
  maxRetries?: number;
  /** Default timeout of a tool call, overridable per tool. Default 120 s. */
  toolTimeoutMs?: number;
  /**
   * Tool calls run per turn (a positive whole number). Calls past it are not run: each
   * gets an error result naming the limit. Default unlimited.
   */
  maxToolCallsPerTurn?: number;
  /**
   * Per tool name, a message that replaces the error text of a failing call of that tool,
   * for the model and everything reading the stored result (the final report included).
   */
  toolFailureOverrides?: Readonly<Record<string, string>>;
  /** First backoff delay, doubled per failed attempt. Default 1 s. */
  retryDelayMs?: number;
  /** Upper bound of any wait, including a provider's `retryAfterMs`. Default 60 s. */
  maxRetryDelayMs?: number;
  /**
   * Whether a `model_error` is retried after a backoff (`retry`) or its target skipped at
   * once for the next one (`skip`). Default `classifyModelError`: errors without a status
   * and 500, 502-504 and 520+ are retried, other statuses skipped.
   */
  classifyModelError?: (error: ModelErrorEvent) => ModelErrorHandling;
  /** The most output tokens asked of the model per answer (a whole number of 1 or more). */
  maxOutputTokens?: number;
  /** Sampling temperature, 0 to 2 (not sent to Anthropic, whose API dropped it). */
  temperature?: number;
  /** Nucleus sampling, 0 to 1 (OpenAI-compatible endpoints). */
  topP?: number;
  /** Top-k sampling, a whole number of 1 or more (OpenAI-compatible servers such as vLLM and llama.cpp). */
  topK?: number;
  /** Penalty for repeated tokens, -2 to 2 (OpenAI-compatible endpoints). */
  frequencyPenalty?: number;
  /** Penalty for tokens already present, -2 to 2 (OpenAI-compatible endpoints). */
  presencePenalty?: number;
  /** Seed for reproducible sampling, where the provider supports it (OpenAI-compatible endpoints). */
  seed?: number;
  /** Stop sequences (1 to 16 non-empty strings; OpenAI itself takes at most 4). */
  stop?: readonly string[];
  /**
   * Whether requests carry prompt-cache hints (Anthropic `cache_control` breakpoints,
   * OpenAI `prompt_cache_key`). Default true; false sends none.
   */
  promptCache?: boolean;
  /**
   * Summarizes the branch left by `navigateTree(id, { summarize: true })` into a
   * `branch_summary` entry; without it, `summarize` throws.
   */
  summarizeBranch?: BranchSummarizer;
  /**
   * The shape of the final report (a zod schema or a JSON schema object). The model then
   * delivers its answer through the built-in `final_report` tool; the report is validated,
   * repaired once where trivially possible and retried with feedback when invalid.
   */
  outputSchema?: OutputSchema;
  /**
   * Synthetic retries per turn: answers that are empty, cut off, without the required final
   * report or with an invalid one are retried with one feedback message. Default 2.
   */
  maxAnswerRetries?: number;
  /**
   * The context guard: before each request the prompt is estimated against
   * `contextWindow − bufferTokens − maxOutput`; over it, the agent moves to a target with a
   * bigger window or forces the final turn, and tool outputs that would pass it are dropped.
   */
  contextGuard?: ContextGuardOptions;
  /**
   * OpenTelemetry spans for each prompt, turn, model attempt and tool call, through
   * `@opentelemetry/api` when it is installed (no-op without a registered SDK).
   */
  telemetry?: TelemetryOptions;
  /**
   * Where the agent's runs sit among the runs of one request: `originId` (the run the
   * request started with; default each run's own id), `parentId` (the run that started
   * this agent, for sub-agents and server runs) and `agentPath` (agent names joined by `:`,
   * such as `main:researcher`; default `main`). Every event, accounting record and span of
   * a run carries them with the run's and the session's id.
   */
  ancestry?: AncestryOptions;
  /**
   * Receives each model call's accounting record (tokens, cost, target, outcome, the run's
   * ancestry) as soon as the call ends, failed and aborted calls included. Awaited; a sink
   * that throws is reported by an `accounting_sink_failed` event and never fails the run.
   */
  accountingSink?: AccountingSink;
  /**
   * Offer the model the built-in `task_status` tool, through which it reports where its
   * task stands (`{ status, message, done?, pending? }`); each report is emitted as an
   * `agent_update` event of kind `task_status`. Default false.
   */
  taskStatusTool?: boolean;
  /** Closed by `shutdown()`, after the running prompt has ended. */
  resources?: readonly AgentResource[];
  /** Whether `shutdown()` closes `session` too. Default false: the caller opened it. */
  ownsSession?: boolean;
  /**
   * When the session compacts: `{ enabled, reserveTokens, keepRecentTokens }`, defaults in
   * `DEFAULT_COMPACTION_SETTINGS`. Before each request the context is compacted when its
   * estimate passes `contextWindow − reserveTokens`; a `context_overflow` error is answered
   * by compacting and retrying the turn once. `enabled: false` turns all of it off.
   */
  compaction?: Partial<CompactionSettings>;
  /** Called around every compaction: may cancel it or supply the summary. */
  compactionHooks?: CompactionHooks;
  /**
   * Generate a title with the serving model after the first exchange when the session has
   * none (`true`), or with this generator. A failed title never fails the run. Default false.
   */
  generateTitle?: boolean | TitleGenerator;
  /** Clock seam, in epoch milliseconds. */
  now?: () => number;
  /** Wait seam; it must resolve early when the signal fires. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Id seam: the id of each run, carried by its events and result. Default a random UUID. */
  generateRunId?: () => string;
}
