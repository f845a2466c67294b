import {
  AGENT_FILE_CUSTOM_TYPE,
  type AgentFileEntry,
  readArborEntry,
  type Session,
} from "@arbor/session-store";

export {
  AGENT_FILE_CUSTOM_TYPE,
  type AgentFileEntry,
  agentFileEntrySchema,
} from "@arbor/session-store";

/**
 * The agent file a session was last run on (its newest valid {@link AGENT_FILE_CUSTOM_TYPE}
 * entry, any branch), or undefined for a session that never ran one.
 */
export function rememberedAgentFile(session: Session): string | undefined {
  const entries = session.getEntries();
  for (let index = entries.length - 1; index >= 0; index -= 1) {
    const file = readArborEntry(entries[index], AGENT_FILE_CUSTOM_TYPE)?.file;
    if (file !== undefined) return file;
  }
  return undefined;
}

/**
 * Records that the session runs on `file` (absolute), unless that is already the file it
 * remembers.
 * @returns the new entry's id, or undefined when nothing changed
 */
export async function rememberAgentFile(
  session: Session,
  file: string,
): Promise<string | undefined> {
  if (rememberedAgentFile(session) === file) return undefined;
  return session.appendCustomEntry(AGENT_FILE_CUSTOM_TYPE, { file } satisfies AgentFileEntry);
}
