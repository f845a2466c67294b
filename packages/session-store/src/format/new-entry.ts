import type { EntryIssue } from "../errors/index.js";
import { findJsonIssue } from "./json-safety.js";
import { entrySchemaIssue } from "./session-log.js";

/**
 * Why an entry about to be appended cannot be stored, or undefined when it can: it must
 * survive JSON unchanged (what is read back is what was appended) and pass its schema
 * (what is read back is not dropped as invalid).
 */
export function newEntryIssue(entry: unknown): EntryIssue | undefined {
  const json = findJsonIssue(entry);
  if (json) return json;
  const schema = entrySchemaIssue(entry);
  return schema ? { field: schema.field, reason: schema.reason } : undefined;
}
