/**
 * The id a rewrite of a stored session (the import replacing a session whose source
 * changed) stores the new copy under until the old one is gone. A store has no atomic
 * replace, so for a moment the session exists twice; listings leave the spare out so it
 * never shows as a session of its own. The `.` keeps it apart from every generated id.
 */
export const SPARE_COPY_SUFFIX = ".replacing";

/** The spare copy's id for a session id. */
export function spareCopyId(id: string): string {
  return `${id}${SPARE_COPY_SUFFIX}`;
}

/** Whether an id is a spare copy's, which listings leave out. */
export function isSpareCopyId(id: string): boolean {
  return id.endsWith(SPARE_COPY_SUFFIX) && id.length > SPARE_COPY_SUFFIX.length;
}
