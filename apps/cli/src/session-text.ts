import { isEntryOfType, messageText, type Session } from "@arbor/session-store";

/** The text of the newest assistant message on the active path, or "" when there is none. */
export function lastAssistantText(session: Session): string {
  const path = session.getBranch();
  for (let i = path.length - 1; i >= 0; i--) {
    const entry = path[i];
    if (entry && isEntryOfType(entry, "message") && entry.message.role === "assistant") {
      return messageText(entry.message);
    }
  }
  return "";
}
