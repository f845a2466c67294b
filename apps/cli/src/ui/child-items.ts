import { childSessionEntrySchema } from "@arbor/session-store";
import type { TranscriptItem } from "./transcript-item.js";

type ChildItem = Extract<TranscriptItem, { kind: "child" }>;

/** A child run's start or end, as an event or a stored `arbor.orchestration.child` entry says it. */
export interface ChildUpdate {
  /** The item id a new row gets (the entry's id, or a generated one for an event). */
  id: string;
  childSessionId: string;
  role: ChildItem["role"];
  agentPath: string;
  outcome: ChildItem["outcome"];
  message?: string | undefined;
  usage?: { input: number; output: number } | undefined;
  cost?: number | undefined;
}

/**
 * The transcript with a child run's start or end: the row of that child session is
 * updated in place; a child not shown yet gets a new row (above an answer being streamed,
 * which stays the last item).
 */
export function withChildUpdate(
  items: readonly TranscriptItem[],
  update: ChildUpdate,
): readonly TranscriptItem[] {
  const ended = update.outcome !== "running";
  const fields = {
    outcome: update.outcome,
    ...(update.message !== undefined ? { message: update.message } : {}),
    ...(ended && update.usage ? { tokens: update.usage.input + update.usage.output } : {}),
    ...(ended && update.cost !== undefined ? { cost: update.cost } : {}),
  };
  const index = items.findIndex(
    (item) => item.kind === "child" && item.childSessionId === update.childSessionId,
  );
  const current = items[index];
  if (current?.kind === "child") {
    const { message: _old, ...rest } = current;
    return [...items.slice(0, index), { ...rest, ...fields }, ...items.slice(index + 1)];
  }
  const row: ChildItem = {
    kind: "child",
    id: update.id,
    childSessionId: update.childSessionId,
    role: update.role,
    agentPath: update.agentPath,
    ...fields,
  };
  const last = items.at(-1);
  return last?.kind === "assistant" && last.status === "streaming"
    ? [...items.slice(0, -1), row, last]
    : [...items, row];
}

/**
 * The update a stored `arbor.orchestration.child` entry records, or undefined for data
 * that is not one (a foreign or damaged entry is skipped, never thrown on).
 */
export function childUpdateOfEntry(entryId: string, data: unknown): ChildUpdate | undefined {
  const parsed = childSessionEntrySchema.safeParse(data);
  if (!parsed.success) return undefined;
  const { childSessionId, role, agentPath, outcome, message, usage, cost } = parsed.data;
  return { id: entryId, childSessionId, role, agentPath, outcome, message, usage, cost };
}
