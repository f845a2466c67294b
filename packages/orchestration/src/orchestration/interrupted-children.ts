import { isEntryOfType, type Session, type SessionStore } from "@arbor/session-store";
import {
  CHILD_SESSION_CUSTOM_TYPE,
  type ChildSessionEntry,
  childSessionEntrySchema,
} from "./child-records.js";

/** The message of a child recorded as interrupted. */
export const INTERRUPTED_CHILD_MESSAGE =
  "the process ended while this child ran; recorded when its parent was resumed";

/** Options of {@link recordInterruptedChildren}. */
export interface RecordInterruptedChildrenOptions {
  /** The store of the children's sessions: their own running children are recorded too. */
  store?: SessionStore;
  tenant?: string;
}

/**
 * Finds the children a session recorded as `running` with no outcome after it (the process
 * died while they ran) and appends their outcome `interrupted`; with a store, does the same
 * in each such child's session, down the tree. A child session that cannot be opened is
 * left as it is (its entry in the parent is still written).
 * @returns the ids of the child sessions recorded as interrupted, at every depth
 */
export async function recordInterruptedChildren(
  session: Session,
  options: RecordInterruptedChildrenOptions = {},
): Promise<string[]> {
  const last = new Map<string, ChildSessionEntry>();
  for (const entry of session.getEntries()) {
    if (!isEntryOfType(entry, "custom") || entry.customType !== CHILD_SESSION_CUSTOM_TYPE) continue;
    const parsed = childSessionEntrySchema.safeParse(entry.data);
    if (parsed.success) last.set(parsed.data.childSessionId, parsed.data);
  }
  const found: string[] = [];
  for (const child of last.values()) {
    if (child.outcome !== "running") continue;
    found.push(child.childSessionId);
    await session.appendCustomEntry(CHILD_SESSION_CUSTOM_TYPE, {
      ...child,
      outcome: "interrupted",
      message: INTERRUPTED_CHILD_MESSAGE,
    } satisfies ChildSessionEntry);
    if (!options.store) continue;
    const tenant = options.tenant !== undefined ? { tenant: options.tenant } : {};
    const opened = await options.store.open(child.childSessionId, tenant).catch(() => undefined);
    if (!opened) continue;
    try {
      found.push(...(await recordInterruptedChildren(opened, options)));
    } finally {
      await opened.close();
    }
  }
  return found;
}
