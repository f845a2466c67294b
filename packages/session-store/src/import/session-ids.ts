import type { ImportSource } from "./imported-log.js";

/**
 * The Arbor id of an imported session: the tool's name and its own session id, with
 * characters a file name cannot hold replaced. The same source always gets the same id,
 * which is what makes re-importing idempotent.
 */
export function importedSessionId(tool: ImportSource, sourceId: string): string {
  const safe = sourceId.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 160);
  return `${tool}-${safe || "unnamed"}`;
}
