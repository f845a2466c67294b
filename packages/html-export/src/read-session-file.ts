import { openSessionFile, type Session } from "@arbor/session-store";
import type {
  SessionSnapshot,
  SessionSnapshotEntry,
  SessionSnapshotHeader,
} from "./session-snapshot.js";

/**
 * The snapshot of an open session: header, every entry of the tree in file order, the
 * leaf and the title.
 */
export function snapshotOfSession(session: Session): SessionSnapshot {
  const title = session.getTitle();
  return {
    header: session.getHeader() as SessionSnapshotHeader,
    entries: session.getEntries() as SessionSnapshotEntry[],
    leafId: session.getLeafId(),
    ...(title ? { title } : {}),
  };
}

/**
 * Reads a session file (Arbor's or pi's, any format version) read-only into a snapshot.
 * Older formats are migrated in memory; the file is never written.
 * @throws SessionFileError (from `@arbor/session-store`) when the file is not a session
 */
export async function readSessionSnapshot(path: string): Promise<SessionSnapshot> {
  const session = await openSessionFile(path, { readOnly: true });
  try {
    return snapshotOfSession(session);
  } finally {
    await session.close();
  }
}
