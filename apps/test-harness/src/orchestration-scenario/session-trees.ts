import {
  ANCESTRY_CUSTOM_TYPE,
  CHILD_SESSION_CUSTOM_TYPE,
  type ChildSessionEntry,
  isArborEntry,
  readArborEntry,
  type Session,
  type SessionStore,
} from "@arbor/session-store";
import { summarizeTree, type TreeSummary } from "../agent-scenario/tree-summary.js";

/** One session of an orchestration, as reopened from the store. */
export interface ObservedSession {
  key: string;
  id: string;
  tree: TreeSummary;
  /** Its child entries as `agent:outcome`, sorted. */
  children: string[];
}

/** The child entries of a session, read through their schema; a malformed one is a failure. */
function childEntries(session: Session, key: string, failures: string[]): ChildSessionEntry[] {
  return session.getEntries().flatMap((entry) => {
    if (!isArborEntry(entry, CHILD_SESSION_CUSTOM_TYPE)) return [];
    const child = readArborEntry(entry, CHILD_SESSION_CUSTOM_TYPE);
    if (!child) failures.push(`${key}: child entry ${entry.id} does not match its schema`);
    return child ? [child] : [];
  });
}

/**
 * Reopens (read-only) the root session and every session reachable through its child
 * entries, keyed by agent path (`path#2` for the second session of one path, in start
 * order), and checks what must hold of every orchestration whatever the scenario: each
 * child's header names its parent, its ancestry names the root and the parent and its
 * path, each child entry that starts `running` ends with an outcome, and the store holds
 * no session the tree does not reach.
 */
export async function collectSessions(
  store: SessionStore,
  rootId: string,
  rootPath: string,
  failures: string[],
): Promise<Map<string, ObservedSession>> {
  const found = new Map<string, ObservedSession>();
  const queue: Array<{ id: string; path: string; parent?: Session }> = [
    { id: rootId, path: rootPath },
  ];
  const opened: Session[] = [];
  try {
    while (queue.length > 0) {
      const next = queue.shift() as { id: string; path: string; parent?: Session };
      const session = await store.open(next.id, { readOnly: true });
      opened.push(session);
      let key = next.path;
      for (let n = 2; found.has(key); n++) key = `${next.path}#${n}`;
      if (next.parent) checkChild(session, next.parent, rootId, next.path, failures);
      const entries = childEntries(session, key, failures);
      const last = new Map<string, ChildSessionEntry>();
      for (const entry of entries) {
        if (!last.has(entry.childSessionId)) {
          if (entry.outcome !== "running")
            failures.push(`${key}: the first entry of child ${entry.agentPath} is not "running"`);
          queue.push({ id: entry.childSessionId, path: entry.agentPath, parent: session });
        }
        last.set(entry.childSessionId, entry);
      }
      for (const entry of last.values()) {
        if (entry.outcome === "running")
          failures.push(`${key}: child ${entry.agentPath} has no outcome after "running"`);
      }
      found.set(key, {
        key,
        id: session.id,
        tree: summarizeTree(session),
        children: entries.map((entry) => `${entry.agent}:${entry.outcome}`).sort(),
      });
    }
    const listed = await store.list({ limit: 1000 });
    const reached = new Set([...found.values()].map((session) => session.id));
    for (const info of listed.sessions) {
      if (!reached.has(info.id)) failures.push(`session ${info.id} is not reachable from the root`);
    }
    return found;
  } finally {
    for (const session of opened) await session.close();
  }
}

function checkChild(
  session: Session,
  parent: Session,
  rootId: string,
  path: string,
  failures: string[],
): void {
  if (session.getHeader().parentSession !== parent.location)
    failures.push(`${path}: the header's parentSession is not the parent's location`);
  const entries = session.getEntries();
  const ancestry = readArborEntry(
    entries.find((entry) => isArborEntry(entry, ANCESTRY_CUSTOM_TYPE)),
    ANCESTRY_CUSTOM_TYPE,
  );
  if (!isArborEntry(entries[0], ANCESTRY_CUSTOM_TYPE))
    failures.push(`${path}: the first entry is not the ancestry record`);
  if (
    ancestry?.originId !== rootId ||
    ancestry?.parentId !== parent.id ||
    ancestry?.agentPath !== path
  ) {
    failures.push(
      `${path}: ancestry ${JSON.stringify(ancestry)} does not name origin ${rootId}, parent ${parent.id}`,
    );
  }
}
