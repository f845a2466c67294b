import {
  CONTEXT_SWITCH_CUSTOM_TYPE,
  type ContextSwitchDetails,
  readArborEntry,
  type Session,
  type SessionEntry,
  SYSTEM_PROMPT_CUSTOM_TYPE,
  type SystemPromptRecord,
} from "@arbor/session-store";
import { InvalidAgentOptionsError } from "./contracts/index.js";

export {
  CONTEXT_SWITCH_CUSTOM_TYPE,
  type ContextSwitchDetails,
  contextSwitchDetailsSchema,
  SYSTEM_PROMPT_CUSTOM_TYPE,
  type SystemPromptRecord,
  systemPromptRecordSchema,
} from "@arbor/session-store";

/** The newest entry on the path to `leafId` (default: the leaf) that `read` makes sense of. */
function newestOnPath<T>(
  session: Pick<Session, "getBranch">,
  leafId: string | null | undefined,
  read: (entry: SessionEntry) => T | undefined,
): T | undefined {
  const path = session.getBranch(leafId);
  for (let i = path.length - 1; i >= 0; i--) {
    const entry = path[i];
    const value = entry === undefined ? undefined : read(entry);
    if (value !== undefined) return value;
  }
  return undefined;
}

/**
 * The system prompt recorded last on the path to `leafId` (default: the leaf): what the
 * runs there were sent, for a resumed session or an export to show. `""` when a run had
 * none after one with a prompt; undefined when nothing was recorded. Malformed records are
 * skipped.
 */
export function recordedSystemPrompt(
  session: Pick<Session, "getBranch">,
  leafId?: string | null,
): string | undefined {
  return newestOnPath(
    session,
    leafId,
    (entry) => readArborEntry(entry, SYSTEM_PROMPT_CUSTOM_TYPE)?.text,
  );
}

/**
 * Records the system prompt of a run when it differs from the one recorded last on the
 * path, as a `custom` entry ({@link SYSTEM_PROMPT_CUSTOM_TYPE}, data `{ text }`).
 * @returns the new entry's id, or undefined when nothing changed
 */
export async function recordSystemPrompt(
  session: Session,
  systemPrompt: string | undefined,
): Promise<string | undefined> {
  const text = systemPrompt ?? "";
  const previous = recordedSystemPrompt(session);
  if (previous === text || (previous === undefined && text === "")) return undefined;
  const record: SystemPromptRecord = { text };
  return session.appendCustomEntry(SYSTEM_PROMPT_CUSTOM_TYPE, record);
}

/**
 * The working directory on the path to `leafId` (default: the leaf): the one the last
 * context switch there names, else the session header's `cwd`.
 */
export function recordedWorkingDirectory(
  session: Pick<Session, "getBranch" | "getHeader">,
  leafId?: string | null,
): string | undefined {
  const switched = newestOnPath(
    session,
    leafId,
    (entry) => readArborEntry(entry, CONTEXT_SWITCH_CUSTOM_TYPE)?.directory,
  );
  return switched ?? session.getHeader().cwd;
}

/**
 * Records a change of working directory as a `custom_message` ({@link
 * CONTEXT_SWITCH_CUSTOM_TYPE}, shown, sent to the model as `Context changed to: <dir>`)
 * when it differs from {@link recordedWorkingDirectory}.
 * @returns the new entry's id, or undefined when the directory did not change
 * @throws InvalidAgentOptionsError (`workingDirectory`) for an empty or non-string directory
 */
export async function recordWorkingDirectory(
  session: Session,
  directory: string,
): Promise<string | undefined> {
  if (typeof directory !== "string" || directory.trim() === "" || directory.includes("\0")) {
    throw new InvalidAgentOptionsError(
      "workingDirectory",
      `workingDirectory must be a non-empty path without NUL characters (got ${JSON.stringify(directory)})`,
    );
  }
  const previous = recordedWorkingDirectory(session);
  if (previous === directory) return undefined;
  const details: ContextSwitchDetails = {
    directory,
    ...(previous === undefined ? {} : { previousDirectory: previous }),
  };
  return session.appendCustomMessageEntry(
    CONTEXT_SWITCH_CUSTOM_TYPE,
    `Context changed to: ${directory}`,
    true,
    details,
  );
}
