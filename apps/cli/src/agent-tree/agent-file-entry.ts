import { isEntryOfType, type Session } from "@arbor/session-store";
import { z } from "zod";

/**
 * The custom entry the interactive app stores in a session it runs on an agent file, so
 * `arbor -c` / `-r` / `-s` resume it on the same agent tree.
 */
export const AGENT_FILE_CUSTOM_TYPE = "arbor.cli.agent-file";

/** The data of an {@link AGENT_FILE_CUSTOM_TYPE} entry: the agent file's absolute path. */
export const agentFileEntrySchema = z.object({ file: z.string().min(1) });
/** The data of an {@link AGENT_FILE_CUSTOM_TYPE} entry. */
export type AgentFileEntry = z.infer<typeof agentFileEntrySchema>;

/**
 * The agent file a session was last run on (its newest valid {@link AGENT_FILE_CUSTOM_TYPE}
 * entry, any branch), or undefined for a session that never ran one.
 */
export function rememberedAgentFile(session: Session): string | undefined {
  const entries = session.getEntries();
  for (let index = entries.length - 1; index >= 0; index -= 1) {
    const entry = entries[index];
    if (!entry || !isEntryOfType(entry, "custom") || entry.customType !== AGENT_FILE_CUSTOM_TYPE)
      continue;
    const parsed = agentFileEntrySchema.safeParse(entry.data);
    if (parsed.success) return parsed.data.file;
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
