import type { ChildOutcome, ChildRole } from "@arbor/orchestration";

/** A child run as one line describes it. */
export interface ChildRunSummary {
  role: ChildRole;
  agentPath: string;
  outcome: ChildOutcome;
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

/**
 * One line for a child run, as the transcript, `/tree` and `arbor sessions show` print it:
 * `⚙ sub-agent front-desk:tech:log-reader ✓ succeeded · 52 tokens · $0.0001`. The text
 * is not made terminal-safe here: callers print it through `terminalSafe`.
 */
export function childRunText(child: ChildRunSummary): string {
  const role = ROLE_TEXT[child.role] ?? { mark: "•", text: String(child.role) };
  const parts = [
    `${role.mark} ${role.text} ${child.agentPath} ${OUTCOME_TEXT[child.outcome] ?? child.outcome}`,
  ];
  if (child.tokens !== undefined && child.outcome !== "running")
    parts.push(`${child.tokens} tokens`);
  if (child.cost !== undefined && child.cost > 0) parts.push(`$${child.cost.toFixed(4)}`);
  const line = parts.join(" · ");
  return child.message ? `${line}: ${child.message}` : line;
}
