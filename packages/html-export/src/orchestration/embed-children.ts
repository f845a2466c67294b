import type { SessionSnapshot, SessionSnapshotEntry } from "../session-snapshot.js";
import { checkLimit } from "./child-options-error.js";
import { childExportFileName } from "./export-file-name.js";
import {
  type ChildRecord,
  readAncestryRecord,
  readChildRecord,
  readSystemPrompt,
} from "./orchestration-records.js";
import type { ChildCard, OrchestrationView } from "./orchestration-view.js";

/** How {@link embedChildSessions} finds and bounds the child sessions it embeds. */
export interface WithChildrenOptions {
  /** Returns a child session by id, or undefined when there is none. */
  loadChild(sessionId: string): SessionSnapshot | undefined;
  /** How many levels of children to embed (default 4; 0 embeds none). */
  maxDepth?: number;
  /** The most entries embedded children may add to the page, all together (default 100,000). */
  maxEntries?: number;
}

/** The default of {@link WithChildrenOptions.maxDepth}. */
export const DEFAULT_CHILD_DEPTH = 4;
/** The default of {@link WithChildrenOptions.maxEntries}. */
export const DEFAULT_CHILD_ENTRIES = 100_000;

interface Level {
  sessionId: string;
  entries: SessionSnapshotEntry[];
  /** The session's own leaf on the page. */
  leaf: string | undefined;
  depth: number;
  /** The parent's entry this session hangs under (none for the exported session). */
  attach?: string;
  parent?: Level;
}

interface Shown {
  first: string | undefined;
  leaf: string | undefined;
}

function leafOf(snapshot: SessionSnapshot, prefix: string): string | undefined {
  const known = snapshot.entries.some((entry) => entry.id === snapshot.leafId);
  const leaf = known ? snapshot.leafId : snapshot.entries.at(-1)?.id;
  return leaf === null || leaf === undefined ? undefined : `${prefix}${leaf}`;
}

function targetOf(shown: Shown): Pick<ChildCard, "target" | "targetLeaf"> {
  return {
    ...(shown.first !== undefined ? { target: shown.first } : {}),
    ...(shown.leaf !== undefined ? { targetLeaf: shown.leaf } : {}),
  };
}

const REFERENCE_FIELDS = ["targetId", "firstKeptEntryId", "fromId"] as const;

function tokensOf(record: ChildRecord): number | undefined {
  const usage = record.usage;
  if (!usage) return undefined;
  // A total written beside the counts (pi's usage shape) wins over their sum.
  const { totalTokens } = usage;
  if (typeof totalTokens === "number" && Number.isFinite(totalTokens)) return totalTokens;
  return usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
}

function cardOf(record: ChildRecord): ChildCard {
  const tokens = tokensOf(record);
  return {
    childSessionId: record.childSessionId,
    role: record.role,
    agent: record.agent,
    agentPath: record.agentPath,
    outcome: record.outcome,
    ...(record.message !== undefined ? { message: record.message } : {}),
    ...(tokens !== undefined ? { tokens } : {}),
    ...(record.cost !== undefined ? { cost: record.cost } : {}),
    fileName: childExportFileName(record.childSessionId),
  };
}

// Entry ids of an embedded session get a prefix no id on the page already starts with,
// so hostile ids (`c1:x` in the parent) cannot collide with them.
function uniquePrefix(used: Set<string>, ids: string[], counter: { n: number }): string {
  for (;;) {
    counter.n++;
    const prefix = `child${counter.n}:`;
    if (!ids.some((id) => used.has(`${prefix}${id}`))) return prefix;
  }
}

function rebase(
  entries: SessionSnapshotEntry[],
  prefix: string,
  attach: string,
): SessionSnapshotEntry[] {
  const ids = new Set(entries.map((entry) => entry.id));
  return entries.map((entry) => {
    const copy: SessionSnapshotEntry = {
      ...entry,
      id: `${prefix}${entry.id}`,
      parentId:
        entry.parentId !== null && ids.has(entry.parentId) ? `${prefix}${entry.parentId}` : attach,
    };
    for (const field of REFERENCE_FIELDS) {
      const value = entry[field];
      if (typeof value === "string" && ids.has(value)) copy[field] = `${prefix}${value}`;
    }
    return copy;
  });
}

/**
 * Reads the orchestration entries of a session (child-session cards, ancestry, system
 * prompts) and, with `withChildren`, embeds each child session's entries under the
 * parent's child-session entry: recursively, breadth first, at most `maxDepth` levels and
 * `maxEntries` entries, each session once (a cycle or a repeat links to where it is
 * already shown). A child the loader does not find, or that fails to load, is noted on
 * its card.
 *
 * @throws ChildOptionsError when `maxDepth` or `maxEntries` is not a whole number of 0 or more.
 * @returns every entry of the page (the session's, then the embedded ones, ids prefixed)
 * and what the page shows for orchestration entries.
 */
export function embedChildSessions(
  snapshot: SessionSnapshot,
  withChildren?: WithChildrenOptions,
): { entries: SessionSnapshotEntry[]; view: OrchestrationView } {
  const view: OrchestrationView = { children: {}, ancestry: {}, systemPrompts: {}, embedded: {} };
  const maxDepth = checkLimit("maxDepth", withChildren?.maxDepth, DEFAULT_CHILD_DEPTH);
  let room = checkLimit("maxEntries", withChildren?.maxEntries, DEFAULT_CHILD_ENTRIES);
  const all: SessionSnapshotEntry[] = [...snapshot.entries];
  const used = new Set(all.map((entry) => entry.id));
  const counter = { n: 0 };
  // Where each session starts on the page: a repeat or a cycle links there.
  const top: Level = {
    sessionId: String(snapshot.header.id),
    entries: snapshot.entries,
    leaf: leafOf(snapshot, ""),
    depth: 0,
  };
  const shown = new Map<string, Shown>([
    [top.sessionId, { first: snapshot.entries[0]?.id, leaf: top.leaf }],
  ]);
  const queue: Level[] = [top];
  for (let at = 0; at < queue.length; at++) {
    const level = queue[at] as Level;
    const cardsById = new Map<string, string[]>();
    for (const entry of level.entries) {
      const prompt = readSystemPrompt(entry);
      if (prompt !== undefined) view.systemPrompts[entry.id] = prompt;
      const ancestry = readAncestryRecord(entry);
      if (ancestry) {
        view.ancestry[entry.id] = {
          ...ancestry,
          fileName: childExportFileName(ancestry.parentId),
          ...(level.attach !== undefined && ancestry.parentId === level.parent?.sessionId
            ? targetOf({ first: level.attach, leaf: level.parent.leaf })
            : {}),
        };
      }
      const record = readChildRecord(entry);
      if (!record) continue;
      view.children[entry.id] = cardOf(record);
      const list = cardsById.get(record.childSessionId) ?? [];
      list.push(entry.id);
      cardsById.set(record.childSessionId, list);
    }
    if (!withChildren) continue;
    for (const [childId, cardIds] of cardsById) {
      const attach = cardIds.at(-1) as string;
      const mark = (patch: Pick<ChildCard, "target" | "targetLeaf" | "note">) => {
        for (const id of cardIds) Object.assign(view.children[id] as ChildCard, patch);
      };
      const already = shown.get(childId);
      if (already) {
        mark({ note: "This session is already shown on this page.", ...targetOf(already) });
        continue;
      }
      if (level.depth + 1 > maxDepth) {
        mark({ note: `Not embedded: more than ${maxDepth} levels below the exported session.` });
        continue;
      }
      let child: SessionSnapshot | undefined;
      try {
        child = withChildren.loadChild(childId);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        mark({ note: `Missing: the child session could not be loaded (${reason}).` });
        continue;
      }
      if (!child) {
        mark({ note: "Missing: the child session was not found." });
        continue;
      }
      if (child.entries.length > room) {
        mark({
          note: `Not embedded: ${child.entries.length} entries would exceed the page's limit for child sessions.`,
        });
        continue;
      }
      room -= child.entries.length;
      const prefix = uniquePrefix(
        used,
        child.entries.map((entry) => entry.id),
        counter,
      );
      const entries = rebase(child.entries, prefix, attach);
      for (const entry of entries) used.add(entry.id);
      all.push(...entries);
      const first = (entries.find((entry) => entry.parentId === attach) ?? entries[0])?.id;
      const leaf = leafOf(child, prefix);
      shown.set(childId, { first, leaf });
      if (first === undefined) {
        mark({ note: "The child session has no entries." });
        continue;
      }
      mark(targetOf({ first, leaf }));
      view.embedded[first] = {
        sessionId: childId,
        depth: level.depth + 1,
        parentEntryId: attach,
        entryCount: entries.length,
      };
      queue.push({
        sessionId: childId,
        entries,
        leaf,
        depth: level.depth + 1,
        attach,
        parent: level,
      });
    }
  }
  return { entries: all, view };
}
