import {
  type CacheHints,
  type ModelRequest,
  REASONING_LEVELS,
  type ReasoningLevel,
} from "@arbor/providers";
import { isEntryOfType, type Session } from "@arbor/session-store";
import { toolDefinitions } from "./agent-tool.js";
import { toModelMessages } from "./context-messages.js";
import type { RunContext } from "./run/run-context.js";
import type { ModelTarget } from "./target-pool.js";

/**
 * The request of one attempt, with the agent's sampling knobs and (unless `promptCache` is
 * false) its prompt-cache hints; a final turn offers only the report tools and those
 * available on a final turn. Extensions may replace the
 * messages (`context`) and the system prompt (for the prompt), add their tools, and see
 * the request before it goes out.
 */
export async function modelRequest(
  run: RunContext,
  signal: AbortSignal,
  finalTurn: boolean,
  turnIndex: number,
  target: ModelTarget,
): Promise<ModelRequest> {
  const { hooks, reportContract } = run;
  const { definition } = run.options;
  const context = run.session.buildSessionContext();
  const messages = await hooks.context(context.messages);
  const meta = hooks.finalMeta;
  const reportTools = [
    ...(reportContract ? [reportContract.definition] : []),
    ...(meta ? [meta.definition] : []),
  ];
  // Once a report is locked for its missing metadata, only the metadata tool is offered; a
  // final turn offers the report tools and the tools that are themselves an answer.
  const agentTools = [...run.tools.values()];
  const tools = meta?.locked
    ? [meta.definition]
    : finalTurn
      ? [
          ...toolDefinitions(agentTools.filter((tool) => tool.availableOnFinalTurn === true)),
          ...reportTools,
        ]
      : [...toolDefinitions(agentTools), ...hooks.toolDefinitions(), ...reportTools];
  const { systemPrompt } = hooks;
  const request: ModelRequest = {
    ...(systemPrompt !== undefined ? { system: systemPrompt } : {}),
    messages: toModelMessages(messages),
    ...(tools.length > 0 ? { tools } : {}),
    ...(definition.maxOutputTokens !== undefined
      ? { maxOutputTokens: definition.maxOutputTokens }
      : {}),
    ...definition.sampling,
    ...reasoning(run.session, context.thinkingLevel),
    ...(definition.promptCache ? { cache: cacheHints(run.session) } : {}),
    signal,
  };
  await hooks.beforeProviderRequest(target, turnIndex, request);
  return request;
}

/**
 * The estimated prompt tokens of the next request to the session's current path, with the
 * agent's own tools and the report tool (the context guard's measure).
 */
export function promptEstimate(run: RunContext): number {
  const tools = toolDefinitions([...run.tools.values()]);
  if (run.reportContract) tools.push(run.reportContract.definition);
  return run.contextGuard.estimate(run.session, run.options.definition.systemPrompt, tools);
}

/**
 * Prompt-caching hints of every request of a session: its id as the stable cache key
 * (OpenAI's `prompt_cache_key`) and breakpoints after the system prompt, the tools and
 * the conversation so far, which the session's next call starts with (Anthropic).
 */
export function cacheHints(session: Session): CacheHints {
  return { key: session.getHeader().id, breakpoints: ["system", "tools", "messages"] };
}

/**
 * The `reasoning` of a request: the path's thinking level, sent when it is not `off` or
 * when a `thinking_level_change` on the path set it explicitly.
 */
function reasoning(session: Session, thinkingLevel: string): { reasoning?: ReasoningLevel } {
  const level = REASONING_LEVELS.find((known) => known === thinkingLevel);
  if (level === undefined) return {};
  if (level !== "off") return { reasoning: level };
  const explicit = session
    .getBranch()
    .some((entry) => isEntryOfType(entry, "thinking_level_change"));
  return explicit ? { reasoning: level } : {};
}
