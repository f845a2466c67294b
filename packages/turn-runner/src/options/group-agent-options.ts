import { randomUUID } from "node:crypto";
import { abortableSleep } from "../abortable-wait.js";
import type { AgentSessionOptions } from "../agent-session-options.js";
import { classifyModelError } from "../failover-policy.js";
import type { AgentOptionGroups, SamplingOptions } from "./agent-option-groups.js";
import { checkAgentOptions } from "./check-agent-options.js";

const SAMPLING_KEYS = [
  "temperature",
  "topP",
  "topK",
  "frequencyPenalty",
  "presencePenalty",
  "seed",
  "stop",
] as const satisfies ReadonlyArray<keyof SamplingOptions>;

/** The sampling knobs given, copied and frozen (a stop list included). */
function samplingOf(options: AgentSessionOptions): Readonly<SamplingOptions> {
  const sampling: Record<string, unknown> = {};
  for (const key of SAMPLING_KEYS) {
    const value = options[key];
    if (value === undefined) continue;
    sampling[key] = Array.isArray(value) ? Object.freeze([...value]) : value;
  }
  return Object.freeze(sampling) as Readonly<SamplingOptions>;
}

/**
 * Groups the flat options of `AgentSession` by what they are — definition, policy,
 * session, host collaborators, seams —, applies the defaults and freezes the groups, once
 * at construction.
 * @throws InvalidAgentOptionsError naming the option when one is of the wrong type, out of
 *   range or unknown (see `agentSessionOptionsSchema`)
 */
export function groupAgentOptions(options: AgentSessionOptions): AgentOptionGroups {
  checkAgentOptions(options);
  const ancestry = options.ancestry && Object.freeze({ ...options.ancestry });
  return Object.freeze({
    definition: Object.freeze({
      targets: Object.freeze([...options.targets]),
      tools: Object.freeze([...(options.tools ?? [])]),
      toolOutput: options.toolOutput,
      systemPrompt: options.systemPrompt,
      outputSchema: options.outputSchema,
      maxOutputTokens: options.maxOutputTokens,
      sampling: samplingOf(options),
      promptCache: options.promptCache ?? true,
      taskStatusTool: options.taskStatusTool ?? false,
    }),
    policy: Object.freeze({
      maxTurns: options.maxTurns ?? 20,
      maxRetries: options.maxRetries ?? 3,
      maxAnswerRetries: options.maxAnswerRetries ?? 2,
      retryDelayMs: options.retryDelayMs ?? 1_000,
      maxRetryDelayMs: options.maxRetryDelayMs ?? 60_000,
      classifyModelError: options.classifyModelError ?? classifyModelError,
      toolTimeoutMs: options.toolTimeoutMs ?? 120_000,
      maxToolCallsPerTurn: options.maxToolCallsPerTurn,
      toolFailureOverrides: Object.freeze({ ...(options.toolFailureOverrides ?? {}) }),
      contextGuard: Object.freeze({ ...options.contextGuard }),
      compaction: options.compaction,
      generateTitle: options.generateTitle,
    }),
    session: Object.freeze({
      session: options.session,
      ownsSession: options.ownsSession ?? false,
      restoreInjectedRules: options.restoreInjectedRules ?? true,
    }),
    host: Object.freeze({
      extensions: options.extensions,
      ttsr: options.ttsr,
      projectRoot: options.projectRoot,
      telemetry: options.telemetry,
      ancestry,
      accountingSink: options.accountingSink,
      resources: Object.freeze([...(options.resources ?? [])]),
      compactionHooks: options.compactionHooks,
      summarizeBranch: options.summarizeBranch,
    }),
    seams: Object.freeze({
      now: options.now ?? Date.now,
      sleep: options.sleep ?? abortableSleep,
      generateRunId: options.generateRunId ?? randomUUID,
    }),
  });
}
