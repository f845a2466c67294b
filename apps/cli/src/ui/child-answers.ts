import type { Session } from "@arbor/session-store";
import { readChildSession } from "./child-session-snapshot.js";
import type { TranscriptItem } from "./transcript-item.js";

/** The roles whose answer is the run's answer (or part of its chain), shown under their row. */
const ANSWERING_ROLES = new Set(["destination", "handoff"]);

/**
 * The answers of the destinations and handoffs a stored transcript shows as rows, read
 * from their own sessions (the root session holds only the rows): item id → the last
 * answer text of the child. Children that cannot be read, or gave no text, are left out.
 */
export async function childAnswers(
  items: readonly TranscriptItem[],
  open: (id: string) => Promise<Session>,
): Promise<Map<string, string>> {
  const answers = new Map<string, string>();
  for (const item of items) {
    if (item.kind !== "child" || item.answer !== undefined) continue;
    if (!ANSWERING_ROLES.has(item.role) || item.outcome !== "succeeded") continue;
    const snapshot = await readChildSession(open, item.childSessionId);
    if (snapshot.status !== "open") continue;
    const last = snapshot.items.findLast((each) => each.kind === "assistant" && each.text !== "");
    if (last?.kind === "assistant") answers.set(item.id, last.text);
  }
  return answers;
}

/** `items` with each child row's answer from `answers` (by item id); unchanged rows keep their identity. */
export function withChildAnswers(
  items: readonly TranscriptItem[],
  answers: ReadonlyMap<string, string>,
): readonly TranscriptItem[] {
  if (answers.size === 0) return items;
  return items.map((item) => {
    const answer = answers.get(item.id);
    return item.kind === "child" && answer !== undefined && item.answer === undefined
      ? { ...item, answer }
      : item;
  });
}
