import { EntryNotFoundError } from "../errors.js";
import type {
  LabelEntry,
  LeafEntry,
  SessionEntry,
  SessionHeader,
  SessionInfoEntry,
} from "../format/entries.js";
import { type EntryRecord, type LogProblem, materializeRecord } from "../format/session-log.js";
import { buildContext, type SessionContext } from "./session-context.js";

/** A node of {@link SessionTree.getTree}: an entry, its label and its children by time. */
export interface SessionTreeNode {
  readonly entry: SessionEntry;
  readonly children: SessionTreeNode[];
  readonly label?: string;
  readonly labelTimestamp?: string;
}

interface Node {
  record: EntryRecord;
  /** The parent in the tree: the record's parent, seen through leaf pointers. */
  parentId: string | null;
  children: Node[];
}

/**
 * The in-memory index of a session: entries by id, children by parent, labels, name and
 * leaf. Read getters keep pi's names. It does no I/O; a {@link Session} feeds it.
 */
export class SessionTree {
  private readonly nodes = new Map<string, Node>();
  private readonly order: Node[] = [];
  /** Children read before their parent, by the parent id they wait for. */
  private readonly waiting = new Map<string, Node[]>();
  private readonly pointers = new Map<string, string | null>();
  private readonly labels = new Map<string, { label: string; timestamp: string }>();
  private sessionName: string | undefined;
  private leafId: string | null = null;

  constructor(
    private header: SessionHeader,
    /** Problems found reading the log; lazily read entries add theirs here. */
    readonly problems: LogProblem[] = [],
  ) {}

  /** Adds a record in file order and moves the leaf to it (or to where a pointer points). */
  add(record: EntryRecord): void {
    if (record.type === "leaf") {
      const pointer = materializeRecord(record) as LeafEntry;
      const target =
        pointer.targetId !== null && this.nodes.has(pointer.targetId) ? pointer.targetId : null;
      this.pointers.set(record.id, target);
      this.leafId = target;
      return;
    }
    if (this.nodes.has(record.id)) {
      this.problems.push({
        kind: "duplicate_id",
        line: record.line,
        message: `line ${record.line} reuses the id "${record.id}"; the later entry wins, as in pi`,
      });
    }
    let parentId = record.parentId;
    if (parentId !== null && this.pointers.has(parentId))
      parentId = this.pointers.get(parentId) ?? null;
    const node: Node = { record, parentId, children: [] };
    this.nodes.set(record.id, node);
    this.order.push(node);
    if (parentId !== null && parentId !== record.id) {
      const parent = this.nodes.get(parentId);
      if (parent) parent.children.push(node);
      else this.waiting.set(parentId, [...(this.waiting.get(parentId) ?? []), node]);
    }
    const early = this.waiting.get(record.id);
    if (early) {
      this.waiting.delete(record.id);
      node.children.push(...early);
    }
    this.leafId = record.id;
    if (record.type === "label") this.applyLabel(this.entryOf(node) as LabelEntry);
    else if (record.type === "session_info") {
      this.sessionName = (this.entryOf(node) as SessionInfoEntry).name?.trim() || undefined;
    }
  }

  /** Moves the leaf without adding an entry. */
  setLeaf(id: string | null): void {
    if (id !== null) this.requireNode(id);
    this.leafId = id;
  }

  getHeader(): SessionHeader {
    return this.header;
  }

  /** @internal replaces the header after a migration rewrite. */
  setHeader(header: SessionHeader): void {
    this.header = header;
  }

  /** The id of the entry the next append becomes a child of, or null before the first. */
  getLeafId(): string | null {
    return this.leafId;
  }

  getLeafEntry(): SessionEntry | undefined {
    return this.leafId === null ? undefined : this.getEntry(this.leafId);
  }

  getEntry(id: string): SessionEntry | undefined {
    const node = this.nodes.get(id);
    return node && this.entryOf(node);
  }

  /** Tells whether an id names an entry of the tree. */
  has(id: string): boolean {
    return this.nodes.has(id);
  }

  /** The number of entries in the tree. */
  get size(): number {
    return this.order.length;
  }

  /** The direct children of an entry, in file order. O(children). */
  getChildren(parentId: string): SessionEntry[] {
    const node = this.nodes.get(parentId);
    return node ? node.children.map((child) => this.entryOf(child)) : [];
  }

  getLabel(id: string): string | undefined {
    return this.labels.get(id)?.label;
  }

  /** The session's display name: the last `session_info` in file order, trimmed; empty clears. */
  getSessionName(): string | undefined {
    return this.sessionName;
  }

  /** Every entry of the tree in file order (leaf pointers, which are not entries of the tree, excluded). */
  getEntries(): SessionEntry[] {
    return this.order.map((node) => this.entryOf(node));
  }

  /** Entries in file order, parsed one at a time as the caller goes. */
  *iterateEntries(): IterableIterator<SessionEntry> {
    for (const node of this.order) yield this.entryOf(node);
  }

  /**
   * The path from the root to an entry (the leaf by default), root first.
   * @throws EntryNotFoundError when `fromId` names no entry
   */
  getBranch(fromId?: string | null): SessionEntry[] {
    const startId = fromId === undefined ? this.leafId : fromId;
    if (startId === null) return [];
    return this.pathNodes(this.requireNode(startId)).map((node) => this.entryOf(node));
  }

  /**
   * The whole session as a forest: roots in file order (entries whose parent is missing
   * count as roots), children sorted by timestamp with ties in file order, labels resolved.
   * Entries are parsed only when a node's `entry` is read.
   */
  getTree(): SessionTreeNode[] {
    const toTreeNode = new Map<Node, SessionTreeNode>();
    const make = (node: Node): SessionTreeNode => {
      const label = this.labels.get(node.record.id);
      const tree = this;
      const treeNode: SessionTreeNode = {
        get entry() {
          return tree.entryOf(node);
        },
        children: [],
        ...(label ? { label: label.label, labelTimestamp: label.timestamp } : {}),
      };
      toTreeNode.set(node, treeNode);
      return treeNode;
    };
    const roots: SessionTreeNode[] = [];
    for (const node of this.order) {
      const isRoot =
        node.parentId === null ||
        node.parentId === node.record.id ||
        !this.nodes.has(node.parentId);
      if (isRoot) roots.push(make(node));
    }
    // Iterative: sessions nest thousands of levels deep.
    const stack = this.order.filter((node) => toTreeNode.has(node));
    while (stack.length > 0) {
      const node = stack.pop() as Node;
      const treeNode = toTreeNode.get(node) as SessionTreeNode;
      const sorted = sortByTime(node.children);
      for (const child of sorted) {
        if (toTreeNode.has(child)) continue;
        treeNode.children.push(make(child));
        stack.push(child);
      }
    }
    return roots;
  }

  /**
   * What the model is sent for a path ending at `leafId` (the leaf by default); `null`
   * gives an empty context.
   * @throws EntryNotFoundError when `leafId` names no entry
   */
  buildSessionContext(leafId?: string | null): SessionContext {
    const startId = leafId === undefined ? this.leafId : leafId;
    const nodes = startId === null ? [] : this.pathNodes(this.requireNode(startId));
    return buildContext({
      length: nodes.length,
      type: (i) => (nodes[i] as Node).record.type,
      id: (i) => (nodes[i] as Node).record.id,
      role: (i) => {
        const record = (nodes[i] as Node).record;
        return record.entry
          ? (record.entry as { message?: { role?: string } }).message?.role
          : record.role;
      },
      entry: (i) => this.entryOf(nodes[i] as Node),
    });
  }

  private pathNodes(start: Node): Node[] {
    const path: Node[] = [];
    const seen = new Set<Node>();
    let current: Node | undefined = start;
    while (current && !seen.has(current)) {
      seen.add(current);
      path.push(current);
      const parentId: string | null = current.parentId;
      current =
        parentId === null || parentId === current.record.id ? undefined : this.nodes.get(parentId);
    }
    return path.reverse();
  }

  private requireNode(id: string): Node {
    const node = this.nodes.get(id);
    if (!node) throw new EntryNotFoundError(id);
    return node;
  }

  private entryOf(node: Node): SessionEntry {
    const record = node.record;
    if (record.entry) return record.entry;
    const entry = materializeRecord(record);
    if (typeof entry !== "string") return entry;
    this.problems.push({ kind: "invalid_json", line: record.line, message: entry });
    // The line is broken, but its id, parent and time were read: keep the tree whole.
    record.entry = {
      type: "unreadable",
      id: record.id,
      parentId: record.parentId,
      timestamp: record.timestamp,
      error: entry,
    };
    record.raw = undefined;
    return record.entry;
  }

  private applyLabel(entry: LabelEntry): void {
    if (entry.label)
      this.labels.set(entry.targetId, { label: entry.label, timestamp: entry.timestamp });
    else this.labels.delete(entry.targetId);
  }
}

function sortByTime(nodes: Node[]): Node[] {
  if (nodes.length < 2) return nodes;
  return nodes
    .map((node, index) => ({ node, index, time: Date.parse(node.record.timestamp) }))
    .sort((a, b) => a.time - b.time || a.index - b.index)
    .map(({ node }) => node);
}
