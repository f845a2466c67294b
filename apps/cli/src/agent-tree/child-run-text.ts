import type { ChildOutcome, ChildRole } from "@arbor/orchestration";

/**
 * A child run as one line describes it. `role` and `outcome` are the words stored or
 * streamed: one of {@link ChildRole} and {@link ChildOutcome}, or a word a newer writer
 * added, shown as written.
 */
export interface ChildRunSummary {
  role: string;
  agentPath: string;
  outcome: string;
  message?: string | undefined;
  tokens?: number | undefined;
  cost?: number | undefined;
}

const ROLE_TEXT: Record<ChildRole, { mark: string; text: string }> = {
  advisor: { mark: "◆", text: "advisor" },
  destination: { mark: "↪", text: "routed to" },
  handoff: { mark: "⇢", text: "handoff to" },
  subagent: { mark: "⚙", text: "sub-agent" },
};

const OUTCOME_TEXT: Record<ChildOutcome, string> = {
  running: "… running",
  succeeded: "✓ succeeded",
  failed: "✗ failed",
  aborted: "✗ aborted",
  timed_out: "✗ timed out",
  interrupted: "✗ interrupted",
};

/** The text of a known word; an own property only, so `constructor` is no known role. */
function textOf<K extends string, T>(texts: Record<K, T>, word: string): T | undefined {
  return Object.hasOwn(texts, word) ? texts[word as K] : undefined;
}

/**
 * One line for a child run, as the transcript, `/tree` and `arbor sessions show` print it:
 * `⚙ sub-agent front-desk:tech:log-reader ✓ succeeded · 52 tokens · $0.0001`. The text
 * is not made terminal-safe here: callers print it through `terminalSafe`.
 */
export function childRunText(child: ChildRunSummary): string {
  const role = textOf(ROLE_TEXT, child.role) ?? { mark: "•", text: child.role };
  const outcome = textOf(OUTCOME_TEXT, child.outcome) ?? child.outcome;
  const parts = [`${role.mark} ${role.text} ${child.agentPath} ${outcome}`];
  if (child.tokens !== undefined && child.outcome !== "running")
    parts.push(`${child.tokens} tokens`);
  if (child.cost !== undefined && child.cost > 0) parts.push(`$${child.cost.toFixed(4)}`);
  const line = parts.join(" · ");
  return child.message ? `${line}: ${child.message}` : line;
}
