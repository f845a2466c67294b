import {
  ANCESTRY_CUSTOM_TYPE,
  isArborEntry,
  readArborEntry,
  type Session,
  SessionNotFoundError,
} from "@arbor/session-store";
import { type TranscriptItem, transcriptFromSession } from "./transcript.js";

/** A child session as `/tree` shows it, read once and closed again. */
export type ChildSessionSnapshot =
  | {
      status: "open";
      sessionId: string;
      location: string;
      /** Where it sits in the run (`front-desk:tech`) and what it was, from its ancestry entry. */
      agentPath: string | undefined;
      role: string | undefined;
      /** Its transcript, its own child runs (grandchildren) among the items. */
      items: TranscriptItem[];
    }
  | { status: "unavailable"; sessionId: string; reason: string };

/**
 * Reads a child session read-only: its transcript and where it sits in the run. A child
 * whose session cannot be opened (its file was deleted, it is damaged) is reported as
 * unavailable with the reason, never thrown.
 */
export async function readChildSession(
  open: (id: string) => Promise<Session>,
  sessionId: string,
): Promise<ChildSessionSnapshot> {
  let session: Session;
  try {
    session = await open(sessionId);
  } catch (error) {
    const reason = SessionNotFoundError.isInstance(error)
      ? "its session file is missing (deleted or moved)"
      : `it cannot be opened: ${error instanceof Error ? error.message : String(error)}`;
    return { status: "unavailable", sessionId, reason };
  }
  try {
    const first = session.getEntries().find((entry) => isArborEntry(entry, ANCESTRY_CUSTOM_TYPE));
    const ancestry = readArborEntry(first, ANCESTRY_CUSTOM_TYPE);
    return {
      status: "open",
      sessionId,
      location: session.location,
      agentPath: ancestry?.agentPath,
      role: ancestry?.role,
      items: transcriptFromSession(session),
    };
  } finally {
    await session.close();
  }
}
