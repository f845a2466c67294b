/**
 * The first line of a session file: the session's identity and where it ran. Fields the
 * exporter does not know are kept and shown in the page's header details.
 */
export type SessionSnapshotHeader = Record<string, unknown> & {
  id: string;
  timestamp: string;
  cwd?: string;
};

/**
 * One entry of the session log in pi's v3 shape (`message`, `compaction`,
 * `branch_summary`, `label`, `custom_message`, `custom`, `model_change`,
 * `thinking_level_change`, `session_info`) or an Arbor addition such as `ttsr_injection`.
 */
export type SessionSnapshotEntry = Record<string, unknown> & {
  type: string;
  id: string;
  parentId: string | null;
  timestamp: string;
};

/**
 * A plain-data view of one session, which is all the exporter needs: it never touches a
 * store. `snapshotOfSession` takes one from an open `@arbor/session-store` session and
 * `readSessionSnapshot` from a session file.
 */
export interface SessionSnapshot {
  /** The session header (first line of the file). */
  header: SessionSnapshotHeader;
  /** Every entry, in file order, across all branches. */
  entries: SessionSnapshotEntry[];
  /** The entry the session currently points at; the page opens on its path. */
  leafId: string | null;
  /** A display title; when absent the page uses the session name or the first prompt. */
  title?: string;
}
