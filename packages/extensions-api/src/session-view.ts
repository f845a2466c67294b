import { type InjectedRule, isEntryOfType } from "@arbor/session-store";
import type { ReadonlySessionView, SessionReader } from "./extension-api.js";

/**
 * Wraps a session so every getter returns a deep copy: an extension that edits what it
 * reads cannot corrupt the session's in-memory tree.
 */
export function copyingSessionView(session: SessionReader): ReadonlySessionView {
  return {
    getHeader: () => structuredClone(session.getHeader()),
    getLeafId: () => session.getLeafId(),
    getEntry: (id) => structuredClone(session.getEntry(id)),
    getChildren: (parentId) => structuredClone(session.getChildren(parentId)),
    getBranch: (fromId) => structuredClone(session.getBranch(fromId)),
    getTree: () => structuredClone(session.getTree()),
    getLabel: (id) => session.getLabel(id),
    getEntries: () => structuredClone(session.getEntries()),
    getTitle: () => session.getTitle(),
    getInjectedTtsrRules: () => injectedRulesOnPath(session),
  };
}

/** The rules of the `ttsr_injection` entries on the session's current path, oldest first. */
function injectedRulesOnPath(session: SessionReader): InjectedRule[] {
  return session
    .getBranch()
    .flatMap((entry) =>
      isEntryOfType(entry, "ttsr_injection") ? structuredClone(entry.injectedRules) : [],
    );
}
