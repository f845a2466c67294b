import {
  CHECKPOINT_CUSTOM_TYPE,
  isArborEntry,
  TTSR_INTERRUPT_CUSTOM_TYPE,
} from "@arbor/session-store";
import {
  type RenderCustomMessage,
  type RenderedCustomMessage,
  renderCustomMessages,
} from "./custom-message-renderer.js";
import { embedChildSessions, type WithChildrenOptions } from "./orchestration/embed-children.js";
import type { OrchestrationView } from "./orchestration/orchestration-view.js";
import type { SessionSnapshot, SessionSnapshotEntry } from "./session-snapshot.js";

/** Token and cost totals summed over every assistant message's `usage`, on all branches. */
export interface UsageTotals {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  total: number;
  cost: number;
  assistantMessages: number;
}

/** How an entry is flagged in the page beyond its own type. */
export type EntryMark = "aborted" | "cut-by-stream-rule" | "stream-rule";

/**
 * Everything the page script needs, computed once at export time so the browser does no
 * tree building: the raw entries plus their tree (indexes into `entries`), labels, marks
 * and totals.
 */
export interface PageData {
  version: 1;
  title: string;
  header: SessionSnapshot["header"];
  leafId: string | null;
  entries: SessionSnapshotEntry[];
  /** Root entry indexes, in display order. */
  roots: number[];
  /** Child indexes of each entry, in display order (timestamp, ties in file order). */
  children: number[][];
  /** Parent index of each entry, or -1 for a root. */
  parent: number[];
  /** Current label of each labelled entry id. */
  labels: Record<string, string>;
  marks: Record<string, EntryMark>;
  /** Models used by the exported session (embedded child sessions not counted). */
  models: string[];
  /** Totals of the exported session (embedded child sessions not counted). */
  totals: UsageTotals;
  /** Child-session cards, ancestry links, system prompts and embedded child sessions. */
  orchestration: OrchestrationView;
  /** Ids of the workspace checkpoint entries whose data reads as one (`arbor.checkpoint`). */
  checkpoints: string[];
  /** `custom_message` entries an app's renderer (an extension's) gave text or HTML for, by id. */
  rendered: Record<string, RenderedCustomMessage>;
  generatedAt: string;
}

function timeOf(entry: SessionSnapshotEntry): number {
  const t = Date.parse(entry.timestamp);
  return Number.isFinite(t) ? t : 0;
}

function sortByTime(indexes: number[], times: number[]): void {
  // Array.prototype.sort is stable, so equal timestamps keep file order (as pi does).
  indexes.sort((a, b) => (times[a] as number) - (times[b] as number));
}

/**
 * Links entries into a tree: an entry whose parent is missing becomes a root, children
 * are ordered by timestamp with ties in file order, matching pi's `getTree()`.
 */
export function buildTree(entries: SessionSnapshotEntry[]): {
  roots: number[];
  children: number[][];
  parent: number[];
} {
  const indexById = new Map<string, number>();
  entries.forEach((entry, index) => {
    indexById.set(entry.id, index);
  });
  const times = entries.map(timeOf);
  const roots: number[] = [];
  const children: number[][] = entries.map(() => []);
  const parent: number[] = entries.map((entry, index) => {
    const p = entry.parentId === null ? undefined : indexById.get(entry.parentId);
    if (p === undefined || p === index) {
      roots.push(index);
      return -1;
    }
    children[p]?.push(index);
    return p;
  });
  breakCycles(roots, children, parent);
  sortByTime(roots, times);
  for (const list of children) if (list.length > 1) sortByTime(list, times);
  return { roots, children, parent };
}

// Entries caught in a parent cycle (a → b → a) are unreachable from any root; the first
// of each such group in file order becomes a root, so every entry is shown once and
// every walk up the tree ends.
function breakCycles(roots: number[], children: number[][], parent: number[]): void {
  const seen = new Uint8Array(parent.length);
  const visit = (start: number) => {
    const stack = [start];
    while (stack.length > 0) {
      const index = stack.pop() as number;
      if (seen[index]) continue;
      seen[index] = 1;
      for (const child of children[index] ?? []) stack.push(child);
    }
  };
  for (const root of roots) visit(root);
  for (let index = 0; index < parent.length; index++) {
    if (seen[index]) continue;
    const p = parent[index] as number;
    const siblings = children[p];
    if (siblings) siblings.splice(siblings.indexOf(index), 1);
    parent[index] = -1;
    roots.push(index);
    visit(index);
  }
}

/**
 * Current labels by entry id: label entries apply in file order across all branches, and
 * a missing or empty label clears the entry's label.
 */
export function collectLabels(entries: SessionSnapshotEntry[]): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const entry of entries) {
    if (entry.type !== "label" || typeof entry.targetId !== "string") continue;
    const label = typeof entry.label === "string" ? entry.label : "";
    if (label) labels[entry.targetId] = label;
    else delete labels[entry.targetId];
  }
  return labels;
}

/** The session's name: the last `session_info` in file order wins; an empty name clears it. */
export function sessionName(entries: SessionSnapshotEntry[]): string | null {
  let name: string | null = null;
  for (const entry of entries) {
    if (entry.type !== "session_info") continue;
    const value = typeof entry.name === "string" ? entry.name.trim() : "";
    name = value || null;
  }
  return name;
}

function messageOf(entry: SessionSnapshotEntry): Record<string, unknown> | undefined {
  const message = entry.type === "message" ? entry.message : undefined;
  return typeof message === "object" && message !== null
    ? (message as Record<string, unknown>)
    : undefined;
}

function firstText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  for (const block of content) {
    if (
      block &&
      typeof block === "object" &&
      block.type === "text" &&
      typeof block.text === "string"
    )
      return block.text;
  }
  return "";
}

function isStreamRuleEntry(entry: SessionSnapshotEntry): boolean {
  return entry.type === "ttsr_injection" || isArborEntry(entry, TTSR_INTERRUPT_CUSTOM_TYPE);
}

/**
 * Flags stream-rule entries and aborted assistant attempts; an aborted attempt whose
 * child is a stream-rule entry (`ttsr_injection` or a `ttsr-interrupt` custom message)
 * was cut by a stream rule rather than by the user.
 */
export function markEntries(
  entries: SessionSnapshotEntry[],
  children: number[][],
): Record<string, EntryMark> {
  const marks: Record<string, EntryMark> = {};
  entries.forEach((entry, index) => {
    if (isStreamRuleEntry(entry)) {
      marks[entry.id] = "stream-rule";
      return;
    }
    const message = messageOf(entry);
    if (message?.role !== "assistant" || message.stopReason !== "aborted") return;
    const cut = (children[index] ?? []).some((c) => {
      const child = entries[c];
      return child !== undefined && isStreamRuleEntry(child);
    });
    marks[entry.id] = cut ? "cut-by-stream-rule" : "aborted";
  });
  return marks;
}

function num(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

/** Sums assistant `usage` over all entries and lists the models used, in order of first use. */
export function summarizeUsage(entries: SessionSnapshotEntry[]): {
  totals: UsageTotals;
  models: string[];
} {
  const totals: UsageTotals = {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    total: 0,
    cost: 0,
    assistantMessages: 0,
  };
  const models = new Set<string>();
  for (const entry of entries) {
    if (entry.type === "model_change" && typeof entry.modelId === "string") {
      models.add(
        typeof entry.provider === "string" ? `${entry.provider}/${entry.modelId}` : entry.modelId,
      );
      continue;
    }
    const message = messageOf(entry);
    if (message?.role !== "assistant") continue;
    totals.assistantMessages++;
    if (typeof message.model === "string") {
      models.add(
        typeof message.provider === "string"
          ? `${message.provider}/${message.model}`
          : message.model,
      );
    }
    const usage = message.usage as Record<string, unknown> | undefined;
    if (!usage || typeof usage !== "object") continue;
    const input = num(usage.input);
    const output = num(usage.output);
    const cacheRead = num(usage.cacheRead);
    const cacheWrite = num(usage.cacheWrite);
    totals.input += input;
    totals.output += output;
    totals.cacheRead += cacheRead;
    totals.cacheWrite += cacheWrite;
    totals.total += num(usage.totalTokens) || input + output + cacheRead + cacheWrite;
    const cost = usage.cost as Record<string, unknown> | undefined;
    if (cost && typeof cost === "object") totals.cost += num(cost.total);
  }
  return { totals, models: [...models] };
}

function pickTitle(snapshot: SessionSnapshot): string {
  if (snapshot.title?.trim()) return snapshot.title.trim();
  const name = sessionName(snapshot.entries);
  if (name) return name;
  for (const entry of snapshot.entries) {
    const message = messageOf(entry);
    if (message?.role !== "user") continue;
    const text = firstText(message.content).replace(/\s+/g, " ").trim();
    if (text) return text.length > 80 ? `${text.slice(0, 79)}…` : text;
  }
  return `Session ${snapshot.header.id}`;
}

/**
 * Prepares the page's data from a snapshot: the tree, labels, marks, title, totals and
 * orchestration entries; with `withChildren`, child sessions are embedded under their
 * child-session entries (see {@link embedChildSessions}).
 *
 * @param now - clock seam for the "exported at" stamp.
 * @param withChildren - how to load child sessions to embed; without it none are.
 * @param renderCustomMessage - how `custom_message` entries are shown (extensions' renderers).
 */
export function buildPageData(
  snapshot: SessionSnapshot,
  now: () => Date = () => new Date(),
  withChildren?: WithChildrenOptions,
  renderCustomMessage?: RenderCustomMessage,
): PageData {
  const { entries, view } = embedChildSessions(snapshot, withChildren);
  const { roots, children, parent } = buildTree(entries);
  const { totals, models } = summarizeUsage(snapshot.entries);
  const known = snapshot.entries.some((entry) => entry.id === snapshot.leafId);
  return {
    version: 1,
    title: pickTitle(snapshot),
    header: snapshot.header,
    leafId: known ? snapshot.leafId : (snapshot.entries.at(-1)?.id ?? null),
    entries,
    roots,
    children,
    parent,
    labels: collectLabels(entries),
    marks: markEntries(entries, children),
    models,
    totals,
    orchestration: view,
    checkpoints: entries
      .filter((entry) => isArborEntry(entry, CHECKPOINT_CUSTOM_TYPE))
      .map((entry) => entry.id),
    rendered: renderCustomMessage ? renderCustomMessages(entries, renderCustomMessage) : {},
    generatedAt: now().toISOString(),
  };
}
