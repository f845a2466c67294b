import { type ExportHtmlOptions, exportSessionToHtml } from "../export-html.js";
import type { SessionSnapshot } from "../session-snapshot.js";
import { checkLimit } from "./child-options-error.js";
import { DEFAULT_CHILD_DEPTH, type WithChildrenOptions } from "./embed-children.js";
import { readChildRecord } from "./orchestration-records.js";

/** A child-session loader that may read files or a database. */
export type LoadChildSession = (
  sessionId: string,
) => SessionSnapshot | undefined | Promise<SessionSnapshot | undefined>;

/**
 * Loads every child session a page would embed, breadth first: at most `maxDepth` levels,
 * each id once (cycles end). A child the loader fails on is kept as its error, so the page
 * notes why it is missing.
 *
 * @returns a synchronous loader over what was loaded, for `withChildren.loadChild`.
 */
export async function preloadChildSessions(
  snapshot: SessionSnapshot,
  loadChild: LoadChildSession,
  maxDepth?: number,
): Promise<(sessionId: string) => SessionSnapshot | undefined> {
  const depthLimit = checkLimit("maxDepth", maxDepth, DEFAULT_CHILD_DEPTH);
  const loaded = new Map<string, SessionSnapshot | Error | undefined>();
  const seen = new Set([String(snapshot.header.id)]);
  let level: SessionSnapshot[] = [snapshot];
  for (let depth = 1; depth <= depthLimit && level.length > 0; depth++) {
    const next: SessionSnapshot[] = [];
    for (const session of level) {
      for (const entry of session.entries) {
        const id = readChildRecord(entry)?.childSessionId;
        if (id === undefined || seen.has(id)) continue;
        seen.add(id);
        try {
          const child = await loadChild(id);
          loaded.set(id, child);
          if (child) next.push(child);
        } catch (error) {
          loaded.set(id, error instanceof Error ? error : new Error(String(error)));
        }
      }
    }
    level = next;
  }
  return (sessionId) => {
    const found = loaded.get(sessionId);
    if (found instanceof Error) throw found;
    return found;
  };
}

/** Options for {@link exportSessionTreeToHtml}. */
export interface ExportTreeOptions
  extends Omit<ExportHtmlOptions, "withChildren">,
    Omit<WithChildrenOptions, "loadChild"> {
  /** Returns a child session by id (may be async), or undefined when there is none. */
  loadChild: LoadChildSession;
}

/**
 * Renders a session with its child sessions embedded (what `--with-children` exports):
 * loads the children through `loadChild` (async is fine), then renders the page.
 *
 * @example
 * ```ts
 * const html = await exportSessionTreeToHtml(snapshot, {
 *   loadChild: async (id) => (await store.has(id)) ? store.snapshot(id) : undefined,
 * });
 * ```
 */
export async function exportSessionTreeToHtml(
  snapshot: SessionSnapshot,
  options: ExportTreeOptions,
): Promise<string> {
  const { loadChild, maxDepth, maxEntries, ...page } = options;
  const preloaded = await preloadChildSessions(snapshot, loadChild, maxDepth);
  return exportSessionToHtml(snapshot, {
    ...page,
    withChildren: {
      loadChild: preloaded,
      ...(maxDepth !== undefined ? { maxDepth } : {}),
      ...(maxEntries !== undefined ? { maxEntries } : {}),
    },
  });
}
