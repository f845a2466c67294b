import { randomUUID } from "node:crypto";
import { z } from "zod";
import { abortableSleep } from "../abortable-wait.js";
import type { AgentSessionOptions } from "../agent-session-options.js";
import { ancestryOptionsSchema, InvalidAgentOptionsError } from "../contracts/index.js";
import { classifyModelError } from "../failover-policy.js";
import type { AgentOptionGroups } from "./agent-option-groups.js";

const count = z.number().int().nonnegative();
const milliseconds = z.number().nonnegative().refine(Number.isFinite, "must be finite");

/** The numeric limits of the policy; each may be left out for its default. */
export const policyLimitsSchema = z.object({
  maxTurns: count.optional(),
  maxRetries: count.optional(),
  maxAnswerRetries: count.optional(),
  retryDelayMs: milliseconds.optional(),
  maxRetryDelayMs: milliseconds.optional(),
  toolTimeoutMs: milliseconds.optional(),
  maxOutputTokens: z.number().int().positive().optional(),
  maxToolCallsPerTurn: z.number().int().positive().optional(),
  toolFailureOverrides: z.record(z.string(), z.string().min(1)).optional(),
});

/** The policy limits as given. */
export type PolicyLimits = z.infer<typeof policyLimitsSchema>;

function checkedLimits(options: AgentSessionOptions): PolicyLimits {
  const picked = Object.fromEntries(
    Object.keys(policyLimitsSchema.shape).flatMap((key) => {
      const value = (options as unknown as Record<string, unknown>)[key];
      return value === undefined ? [] : [[key, value]];
    }),
  );
  const parsed = policyLimitsSchema.safeParse(picked);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = String(issue?.path[0] ?? "options");
  throw new InvalidAgentOptionsError(
    field,
    `AgentSession option \`${field}\` is invalid (${JSON.stringify(picked[field])}): ${issue?.message ?? "invalid value"}`,
  );
}

/** The `ancestry` option, checked: ids without spaces, an agent path of names joined by `:`. */
function checkedAncestry(options: AgentSessionOptions) {
  if (options.ancestry === undefined) return undefined;
  const parsed = ancestryOptionsSchema.safeParse(options.ancestry);
  if (parsed.success) return Object.freeze(parsed.data);
  const issue = parsed.error.issues[0];
  const field = ["ancestry", ...(issue?.path ?? []).map(String)].join(".");
  throw new InvalidAgentOptionsError(
    field,
    `AgentSession option \`${field}\` is invalid: ${issue?.message ?? "invalid value"}`,
  );
}

/**
 * Groups the flat options of `AgentSession` by what they are — definition, policy,
 * session, host collaborators, seams —, applies the defaults and freezes the groups, once
 * at construction.
 * @throws InvalidAgentOptionsError when `targets` is empty or a limit is not a
 *   non-negative number (turns and retries whole)
 */
export function groupAgentOptions(options: AgentSessionOptions): AgentOptionGroups {
  if (options.targets.length === 0) {
    throw new InvalidAgentOptionsError(
      "targets",
      "AgentSession needs at least one model target in `targets`",
    );
  }
  const limits = checkedLimits(options);
  const ancestry = checkedAncestry(options);
  return Object.freeze({
    definition: Object.freeze({
      targets: Object.freeze([...options.targets]),
      tools: Object.freeze([...(options.tools ?? [])]),
      toolOutput: options.toolOutput,
      systemPrompt: options.systemPrompt,
      outputSchema: options.outputSchema,
      maxOutputTokens: limits.maxOutputTokens,
      temperature: options.temperature,
      taskStatusTool: options.taskStatusTool ?? false,
    }),
    policy: Object.freeze({
      maxTurns: limits.maxTurns ?? 20,
      maxRetries: limits.maxRetries ?? 3,
      maxAnswerRetries: limits.maxAnswerRetries ?? 2,
      retryDelayMs: limits.retryDelayMs ?? 1_000,
      maxRetryDelayMs: limits.maxRetryDelayMs ?? 60_000,
      classifyModelError: options.classifyModelError ?? classifyModelError,
      toolTimeoutMs: limits.toolTimeoutMs ?? 120_000,
      maxToolCallsPerTurn: limits.maxToolCallsPerTurn,
      toolFailureOverrides: Object.freeze({ ...(limits.toolFailureOverrides ?? {}) }),
      contextGuard: options.contextGuard ?? {},
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
