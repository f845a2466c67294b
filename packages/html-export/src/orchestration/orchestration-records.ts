import {
  ANCESTRY_CUSTOM_TYPE,
  type AncestryEntry,
  CHILD_SESSION_CUSTOM_TYPE,
  type ChildSessionEntry,
  readArborEntry,
  SYSTEM_PROMPT_CUSTOM_TYPE,
} from "@arbor/session-store";
import type { SessionSnapshotEntry } from "../session-snapshot.js";

export {
  ANCESTRY_CUSTOM_TYPE,
  CHILD_SESSION_CUSTOM_TYPE,
  SYSTEM_PROMPT_CUSTOM_TYPE,
} from "@arbor/session-store";

/*
 * The page reads orchestration entries through their one schema in `@arbor/session-store`:
 * unknown fields are fine and roles or outcomes a newer writer adds are shown as written;
 * an entry that does not match is shown as ordinary extension data.
 */

/** A child-session record as the page reads it. */
export type ChildRecord = ChildSessionEntry;

/** An ancestry record as the page reads it. */
export type AncestryRecord = AncestryEntry;

/** The child-session record an entry holds, or undefined (not one, or a bad shape). */
export function readChildRecord(entry: SessionSnapshotEntry): ChildRecord | undefined {
  return readArborEntry(entry, CHILD_SESSION_CUSTOM_TYPE);
}

/** The ancestry record an entry holds, or undefined (not one, or a bad shape). */
export function readAncestryRecord(entry: SessionSnapshotEntry): AncestryRecord | undefined {
  return readArborEntry(entry, ANCESTRY_CUSTOM_TYPE);
}

/** The system prompt an entry holds, or undefined (not one, or a bad shape). */
export function readSystemPrompt(entry: SessionSnapshotEntry): string | undefined {
  return readArborEntry(entry, SYSTEM_PROMPT_CUSTOM_TYPE)?.text;
}
