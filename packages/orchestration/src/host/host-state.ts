import type { ModelInfo, ReasoningLevel } from "@arbor/providers";
import { estimateContextTokens, isEntryOfType, type Session } from "@arbor/session-store";
import type { AgentSession } from "@arbor/turn-runner";
import { type SessionUsage, sessionUsage } from "./session-usage.js";

/** What the host is doing; `undefined` when it is idle. */
export type HostActivity =
  | "prompt"
  | "compact"
  | "navigate"
  | "rewind"
  | "fork"
  | "switch"
  | "close";

/** A snapshot of an agent host, derived from its session and agent on every call. */
export interface AgentHostState {
  sessionId: string;
  /** Where the session is stored (`Session.location`). */
  location: string;
  /** The session's name, else the title made from its first user message. */
  title: string | undefined;
  /** The model the next request goes to. */
  model: Pick<ModelInfo, "provider" | "id" | "contextWindow" | "pricing">;
  /** The path's reasoning level, else the definition's, else `off`. */
  thinkingLevel: ReasoningLevel;
  /** Everything the session's stored answers and failed attempts used. */
  usage: SessionUsage;
  /** How often each stream rule fired in this session, every branch included. */
  ruleHits: ReadonlyMap<string, number>;
  /** The estimated size of the context the next request sends, in tokens. */
  contextTokens: number;
  /** What the host is busy with; `undefined` when idle. */
  busy: HostActivity | undefined;
  closed: boolean;
}

/** Derives the state from the session, the agent and what the host is doing. */
export function deriveHostState(
  session: Session,
  agent: AgentSession,
  defaultThinking: ReasoningLevel | undefined,
  activity: HostActivity | undefined,
  closed: boolean,
): AgentHostState {
  const path = session.getBranch();
  const chosen = path.some((entry) => isEntryOfType(entry, "thinking_level_change"));
  const info = agent.model.info;
  return {
    sessionId: session.id,
    location: session.location,
    title: session.getTitle(),
    model: {
      provider: info.provider,
      id: info.id,
      contextWindow: info.contextWindow,
      pricing: info.pricing,
    },
    thinkingLevel: chosen
      ? (agent.thinkingLevel as ReasoningLevel)
      : (defaultThinking ?? (agent.thinkingLevel as ReasoningLevel)),
    usage: sessionUsage(session),
    ruleHits: ruleHits(session),
    contextTokens: estimateContextTokens(path),
    busy: activity ?? (agent.running ? "prompt" : undefined),
    closed,
  };
}

function ruleHits(session: Session): Map<string, number> {
  const hits = new Map<string, number>();
  for (const entry of session.getEntries()) {
    if (!isEntryOfType(entry, "ttsr_injection")) continue;
    for (const { rule } of entry.injectedRules) hits.set(rule, (hits.get(rule) ?? 0) + 1);
  }
  return hits;
}
