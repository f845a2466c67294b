import { spareCopyId } from "../spare-copy.js";
import type { SessionStore } from "../store/session-store.js";
import { SessionNotFoundError } from "../store/store-errors.js";
import type { ImportedLog } from "./imported-log.js";

export { spareCopyId } from "../spare-copy.js";

/** An imported session as the text of a session log (header, then entries). */
export function importedLogText(log: ImportedLog): string {
  const lines = [JSON.stringify(log.header)];
  for (const entry of log.entries) lines.push(JSON.stringify(entry));
  return `${lines.join("\n")}\n`;
}

/**
 * Replaces a stored imported session with `log` whole, for the few changes an append
 * cannot make (a torn last line that is now complete, an entry the source changed). A
 * store has no atomic replace, so the new copy is stored first under
 * {@link spareCopyId}; only then is the old one deleted and the new one stored under its
 * own id, and the spare removed. Whenever the process dies, the store holds a whole copy:
 * the old one, the spare, or the new one ({@link removeSpareCopy} tidies up next time).
 */
export async function rewriteStoredSession(
  store: SessionStore,
  log: ImportedLog,
  tenant: string | undefined,
): Promise<void> {
  const id = log.header.id;
  const options = tenant === undefined ? {} : { tenant };
  const spareId = spareCopyId(id);
  await removeSpareCopy(store, id, tenant);
  await store.importLog(
    importedLogText({ ...log, header: { ...log.header, id: spareId } }),
    options,
  );
  await store.delete(id, options);
  await store.importLog(importedLogText(log), options);
  await store.delete(spareId, options);
}

/**
 * Deletes the spare copy a rewrite interrupted by a crash left behind, if there is one.
 * Called once the session itself is stored (or about to be rewritten), so no copy is lost.
 * @returns whether there was one
 */
export async function removeSpareCopy(
  store: SessionStore,
  id: string,
  tenant: string | undefined,
): Promise<boolean> {
  try {
    await store.delete(spareCopyId(id), tenant === undefined ? {} : { tenant });
    return true;
  } catch (error) {
    if (SessionNotFoundError.isInstance(error)) return false;
    throw error;
  }
}
