import {
  type AgentMessage,
  ANSWER_FEEDBACK_CUSTOM_TYPE,
  isEntryOfType,
  readArborEntry,
  type Session,
  TTSR_INTERRUPT_CUSTOM_TYPE,
  type TtsrInterruptDetails,
} from "@arbor/session-store";
import { type ResolvedTtsrRule, renderInterrupt, type TtsrManager } from "@arbor/ttsr";
import { type AttemptOutcome, assistantMessage } from "./model-attempt.js";
import type { RunState } from "./run-state.js";
import type { ModelTarget } from "./target-pool.js";
import { triggeredRule } from "./triggered-rule.js";

export { TTSR_INTERRUPT_CUSTOM_TYPE } from "@arbor/session-store";

/** What persisting a stream rule's reminder needs. */
export interface RuleReminderContext {
  session: Session;
  ttsr: TtsrManager;
  /** Rule paths in reminders are shown relative to this directory (default: the session's cwd). */
  projectRoot: string | undefined;
  /** Appends a message in order with the run's other appends. */
  appendMessage: (message: AgentMessage) => Promise<string>;
  now: () => number;
}

/**
 * Feeds a session's injection records into a fresh manager. Every turn that ended stored
 * exactly one accepted answer that was not aborted, so counting those gives the current
 * turn; answers a synthetic retry rejected (named by their feedback entries) do not count.
 */
export function restoreTtsr(ttsr: TtsrManager, session: Session): void {
  const records: unknown[] = [];
  const rejected = new Set<string>();
  const answers: string[] = [];
  for (const entry of session.getEntries()) {
    if (isEntryOfType(entry, "ttsr_injection")) records.push(...entry.injectedRules);
    else if (isEntryOfType(entry, "message")) {
      const { message } = entry;
      if (message.role === "assistant" && message.stopReason !== "aborted") answers.push(entry.id);
    } else {
      const feedback = readArborEntry(entry, ANSWER_FEEDBACK_CUSTOM_TYPE);
      if (feedback) rejected.add(feedback.rejectedEntryId);
    }
  }
  const turn = answers.filter((id) => !rejected.has(id)).length;
  if (records.length > 0 || turn > 0) ttsr.restoreInjected(records, { turn });
}

function reminderText(context: RuleReminderContext, rules: ResolvedTtsrRule[]): string {
  const projectRoot = context.projectRoot ?? (context.session.getHeader().cwd || "/");
  return renderInterrupt(rules, { projectRoot });
}

/**
 * Handles a stream rule match: the partial answer is stored as an aborted entry (and
 * left off the path in `discard` mode), the reminder is appended as a hidden message and
 * the injection is recorded, so the retried turn sees the rule.
 */
export async function persistInterrupt(
  context: RuleReminderContext,
  turnIndex: number,
  target: ModelTarget,
  outcome: Extract<AttemptOutcome, { kind: "interrupt" }>,
  state: RunState,
): Promise<void> {
  const { session, ttsr } = context;
  const parentId = session.getLeafId();
  const partialEntryId = await context.appendMessage(
    assistantMessage(target, outcome.content, "aborted", outcome.usage, context.now()),
  );
  const rules = outcome.matches.map((match) => match.rule);
  const contextMode = rules.every((rule) => rule.contextMode === "keep") ? "keep" : "discard";
  if (contextMode === "discard" && parentId !== null) await session.branch(parentId);
  const names = rules.map((rule) => rule.name);
  await session.appendCustomMessageEntry(
    TTSR_INTERRUPT_CUSTOM_TYPE,
    reminderText(context, rules),
    false,
    { rules: names, partialEntryId } satisfies TtsrInterruptDetails,
  );
  await session.appendTtsrInjection(ttsr.markInjected(names));
  state.channel.push({
    type: "ttsr_triggered",
    turnIndex,
    rules: rules.map(triggeredRule),
    contextMode,
    interrupted: true,
    partialEntryId,
  });
}

/**
 * Appends the reminder of rules that matched without interrupting (`interruptMode:
 * "never"`) once the turn's answer and tool results are stored, so it never splits a
 * tool call from its result.
 */
export async function injectQueuedRules(
  context: RuleReminderContext,
  turnIndex: number,
  state: RunState,
): Promise<void> {
  if (state.queuedRules.size === 0) return;
  const rules = [...state.queuedRules.values()];
  state.queuedRules.clear();
  const names = rules.map((rule) => rule.name);
  await context.session.appendCustomMessageEntry(
    TTSR_INTERRUPT_CUSTOM_TYPE,
    reminderText(context, rules),
    false,
    { rules: names, interrupted: false } satisfies TtsrInterruptDetails,
  );
  await context.session.appendTtsrInjection(context.ttsr.markInjected(names));
  state.channel.push({
    type: "ttsr_triggered",
    turnIndex,
    rules: rules.map(triggeredRule),
    contextMode: "keep",
    interrupted: false,
  });
}
