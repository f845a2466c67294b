import type { AgentHost, HostRun } from "@arbor/orchestration";
import { isEntryOfType, type Session } from "@arbor/session-store";

/** A user message at the end of the active path that no answer follows. */
export interface UnansweredPrompt {
  /** The id of the user message entry. */
  entryId: string;
  /** Its text, as the user sent it. */
  text: string;
}

/**
 * The user message the session's path ends with when no answer follows it (the process was
 * killed before the answer was stored), else undefined. Entries that are not messages
 * (labels, approvals, model changes) after it do not count as an answer.
 */
export function unansweredPrompt(session: Session): UnansweredPrompt | undefined {
  const path = session.getBranch();
  for (let index = path.length - 1; index >= 0; index -= 1) {
    const entry = path[index];
    if (entry === undefined || !isEntryOfType(entry, "message")) continue;
    if (entry.message.role !== "user") return undefined;
    const content = entry.message.content;
    const text =
      typeof content === "string"
        ? content
        : (content ?? []).map((part) => (part.type === "text" ? part.text : "")).join("");
    return { entryId: entry.id, text };
  }
  return undefined;
}

/**
 * Sends an unanswered prompt again without stacking a second copy after it: the leaf moves
 * to the message's parent and the text is sent from there, so the new message is a
 * sibling of the old one. Nothing is deleted; the unanswered message stays in the tree.
 */
export async function retryUnansweredPrompt(
  host: AgentHost,
  prompt: UnansweredPrompt,
): Promise<HostRun> {
  const { text } = await host.editMessage(prompt.entryId);
  return host.prompt(text);
}
