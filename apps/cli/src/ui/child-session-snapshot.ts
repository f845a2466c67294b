import { ANCESTRY_CUSTOM_TYPE, ancestryEntrySchema } from "@arbor/orchestration";
import { isEntryOfType, type Session, SessionNotFoundError } from "@arbor/session-store";
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
    const ancestry = session
      .getEntries()
      .find((entry) => isEntryOfType(entry, "custom") && entry.customType === ANCESTRY_CUSTOM_TYPE);
    const parsed = ancestryEntrySchema.safeParse(
      ancestry && isEntryOfType(ancestry, "custom") ? ancestry.data : undefined,
    );
    return {
      status: "open",
      sessionId,
      location: session.location,
      agentPath: parsed.success ? parsed.data.agentPath : undefined,
      role: parsed.success ? parsed.data.role : undefined,
      items: transcriptFromSession(session),
    };
  } finally {
    await session.close();
  }
}
