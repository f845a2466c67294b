import {
  ANCESTRY_CUSTOM_TYPE,
  isArborEntry,
  openSessionFile,
  type SessionInfo,
} from "@arbor/session-store";

/**
 * Whether a listed session is a child run of an agent file (an advisor's, destination's,
 * handoff's or sub-agent's session: it has a parent and starts with an
 * `arbor.orchestration.ancestry` entry) rather than one the user started or forked. A
 * session that cannot be read is not called a child.
 */
export async function isChildSession(info: SessionInfo): Promise<boolean> {
  if (info.parentSession === undefined) return false;
  const session = await openSessionFile(info.path, { readOnly: true }).catch(() => undefined);
  if (!session) return false;
  try {
    return session.getEntries().some((entry) => isArborEntry(entry, ANCESTRY_CUSTOM_TYPE));
  } finally {
    await session.close();
  }
}

/**
 * The sessions without the child runs of agent files, in their order: what `arbor -c`,
 * `-r` and `/sessions` offer (a child is opened from its parent's `/tree`).
 */
export async function withoutChildSessions(
  sessions: readonly SessionInfo[],
): Promise<SessionInfo[]> {
  const children = await Promise.all(sessions.map((info) => isChildSession(info)));
  return sessions.filter((_, index) => !children[index]);
}
