import { isEntryOfType, type Session, type SessionEntry } from "@arbor/session-store";
import { z } from "zod";
import { InvalidAgentOptionsError } from "./contracts/index.js";

/**
 * The `customType` of the `custom` entry recording the system prompt runs used from that
 * point of the path on (stored once per change; never sent to the model; pi keeps it as
 * an extension's data).
 */
export const SYSTEM_PROMPT_CUSTOM_TYPE = "arbor.system-prompt";

/**
 * The `customType` of the `custom_message` recording a change of working directory
 * (CodeTether's context switch): shown to the user and sent to the model.
 */
export const CONTEXT_SWITCH_CUSTOM_TYPE = "arbor.context-switch";

/** The data of an `arbor.system-prompt` entry: the prompt's text (`""`: none). */
export const systemPromptRecordSchema = z.object({ text: z.string() });
/** The data of an `arbor.system-prompt` entry. */
export type SystemPromptRecord = z.infer<typeof systemPromptRecordSchema>;

/** The details of an `arbor.context-switch` message. */
export const contextSwitchDetailsSchema = z.object({
  /** The working directory from this point of the path on. */
  directory: z.string().min(1),
  /** The one before, when known. */
  previousDirectory: z.string().optional(),
});
/** The details of an `arbor.context-switch` message. */
export type ContextSwitchDetails = z.infer<typeof contextSwitchDetailsSchema>;

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
  return newestOnPath(session, leafId, (entry) => {
    if (!isEntryOfType(entry, "custom") || entry.customType !== SYSTEM_PROMPT_CUSTOM_TYPE) {
      return undefined;
    }
    const parsed = systemPromptRecordSchema.safeParse(entry.data);
    return parsed.success ? parsed.data.text : undefined;
  });
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
  const switched = newestOnPath(session, leafId, (entry) => {
    if (
      !isEntryOfType(entry, "custom_message") ||
      entry.customType !== CONTEXT_SWITCH_CUSTOM_TYPE
    ) {
      return undefined;
    }
    const parsed = contextSwitchDetailsSchema.safeParse(entry.details);
    return parsed.success ? parsed.data.directory : undefined;
  });
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
