import { activityTimeFromLineEnd, activityTimeOf, laterActivity } from "../activity-time.js";
import { EntryNotFoundError } from "../errors/index.js";
import type {
  LabelEntry,
  LeafEntry,
  SessionEntry,
  SessionHeader,
  SessionInfoEntry,
} from "../format/entries.js";
import { type EntryRecord, type LogProblem, materializeRecord } from "../format/session-log.js";
import { buildContext, type SessionContext } from "./session-context.js";

const tailDecoder = new TextDecoder("utf-8");

/** The state of a tree before an append, to go back to if its write fails. */
export interface TreeCheckpoint {
  readonly size: number;
  readonly journalLength: number;
  readonly leafId: string | null;
  readonly sessionName: string | undefined;
  readonly messages: number;
  readonly activity: number | undefined;
}

interface UndoStep {
  earlierPosition?: number;
  adopted?: number[];
  label?: { targetId: string; previous: { label: string; timestamp: string } | undefined };
}

/** A node of {@link SessionTree.getTree}: an entry, its label and its children by time. */
export interface SessionTreeNode {
  readonly entry: SessionEntry;
  readonly children: SessionTreeNode[];
  readonly label?: string;
  readonly labelTimestamp?: string;
}

/**
 * The in-memory index of a session: entries by id, children by parent, labels, name and
 * leaf. Read getters keep pi's names. It does no I/O; a {@link Session} feeds it.
 *
 * Entries are kept by position in file order, in parallel arrays: opening a long session
 * adds one record per line and nothing else per entry (no node object, and a children
 * list only for entries that have children), which keeps the garbage collector's work to
 * the parsed entries themselves.
 */
export class SessionTree {
  /** Every record in file order (leaf pointers excluded). */
  private readonly records: EntryRecord[] = [];
  /** The tree parent of each record: its parent id seen through leaf pointers. */
  private readonly parentIds: (string | null)[] = [];
  /**
   * The children of each record in file order: -1 while it has none, the position of its
   * only child (most entries have one), or a list once it has more.
   */
  private readonly childPositions: (number | number[])[] = [];
  /** The position of the record an id names (the later one when an id is reused). */
  private readonly positions = new Map<string, number>();
  /** Children read before their parent, by the parent id they wait for. */
  private readonly waiting = new Map<string, number[]>();
  private readonly pointers = new Map<string, string | null>();
  private readonly labels = new Map<string, { label: string; timestamp: string }>();
  private sessionName: string | undefined;
  private leafId: string | null = null;
  private messages = 0;
  private activity: number | undefined;
  /**
   * While a checkpoint is open: what each add since changed beyond the scalars a
   * checkpoint keeps (an id's earlier position, a label's earlier value, children adopted).
   */
  private journal: UndoStep[] | undefined;

  constructor(
    private header: SessionHeader,
    /** Problems found reading the log; lazily read entries add theirs here. */
    readonly problems: LogProblem[] = [],
  ) {}

  /** Adds a record in file order and moves the leaf to it (or to where a pointer points). */
  add(record: EntryRecord): void {
    const { id, type } = record;
    if (type === "leaf") {
      const pointer = materializeRecord(record) as LeafEntry;
      const known = pointer.targetId === null || this.positions.has(pointer.targetId);
      if (!known) {
        this.problems.push({
          kind: "invalid_entry",
          line: record.line,
          message: `line ${record.line}: the leaf pointer names "${pointer.targetId}", which no earlier entry has; the leaf moved to before the first entry`,
        });
      }
      const target = known ? pointer.targetId : null;
      this.pointers.set(id, target);
      this.leafId = target;
      return;
    }
    const position = this.records.length;
    this.earlierPosition = this.journal ? this.positions.get(id) : undefined;
    if (this.positions.has(id)) {
      this.problems.push({
        kind: "duplicate_id",
        line: record.line,
        message: `line ${record.line} reuses the id "${id}"; the later entry wins, as in pi`,
      });
    }
    let parentId = record.parentId;
    if (parentId !== null && this.pointers.size > 0 && this.pointers.has(parentId))
      parentId = this.pointers.get(parentId) ?? null;
    this.records.push(record);
    this.parentIds.push(parentId);
    this.childPositions.push(-1);
    this.positions.set(id, position);
    if (parentId !== null && parentId !== id) {
      const parent = this.positions.get(parentId);
      if (parent !== undefined) this.addChild(parent, position);
      else {
        const early = this.waiting.get(parentId);
        if (early) early.push(position);
        else this.waiting.set(parentId, [position]);
      }
    }
    let adopted: number[] | undefined;
    if (this.waiting.size > 0) {
      adopted = this.waiting.get(id);
      if (adopted) {
        this.waiting.delete(id);
        for (const child of adopted) this.addChild(position, child);
      }
    }
    if (this.journal) this.pendingAdoption = adopted;
    this.leafId = id;
    if (this.journal) this.journal.push(this.undoStepFor(record, position));
    if (type === "message") {
      this.messages++;
      this.noteActivity(record, position);
    } else if (type === "label") this.applyLabel(this.entryAt(position) as LabelEntry);
    else if (type === "session_info") {
      this.sessionName = (this.entryAt(position) as SessionInfoEntry).name?.trim() || undefined;
    }
  }

  /**
   * Remembers the tree as it is, so {@link rollback} can bring it back: entries added
   * after it are taken out again (a write that failed). Cheap; call before each append.
   */
  checkpoint(): TreeCheckpoint {
    this.journal ??= [];
    return {
      size: this.records.length,
      journalLength: this.journal.length,
      leafId: this.leafId,
      sessionName: this.sessionName,
      messages: this.messages,
      activity: this.activity,
    };
  }

  /**
   * Takes out every entry added since `checkpoint` (newest first) and restores the leaf,
   * labels, name and counts as they were. Does nothing when they are already gone.
   */
  rollback(checkpoint: TreeCheckpoint): void {
    const journal = this.journal;
    if (!journal || this.records.length < checkpoint.size) return;
    while (this.records.length > checkpoint.size) {
      const position = this.records.length - 1;
      const step = journal[checkpoint.journalLength + (position - checkpoint.size)];
      this.removeLast(position, step);
    }
    journal.length = checkpoint.journalLength;
    this.leafId = checkpoint.leafId;
    this.sessionName = checkpoint.sessionName;
    this.messages = checkpoint.messages;
    this.activity = checkpoint.activity;
  }

  /** Ends every checkpoint: nothing added so far will be rolled back. */
  commit(): void {
    this.journal = undefined;
  }

  /** Tells whether an id is taken: by an entry, or as the parent that earlier lines wait for. */
  isTaken(id: string): boolean {
    return this.positions.has(id) || this.waiting.has(id) || this.pointers.has(id);
  }

  private pendingAdoption: number[] | undefined;

  private undoStepFor(record: EntryRecord, position: number): UndoStep {
    const step: UndoStep = {};
    const adopted = this.pendingAdoption;
    this.pendingAdoption = undefined;
    if (adopted) step.adopted = adopted;
    const earlier = this.earlierPosition;
    if (earlier !== undefined) step.earlierPosition = earlier;
    if (record.type === "label") {
      const target = (this.entryAt(position) as LabelEntry).targetId;
      step.label = { targetId: target, previous: this.labels.get(target) };
    }
    return step;
  }

  private earlierPosition: number | undefined;

  private removeLast(position: number, step: UndoStep | undefined): void {
    const record = this.records[position] as EntryRecord;
    const parentId = this.parentIds[position] ?? null;
    if (parentId !== null && parentId !== record.id) {
      const parent = this.positions.get(parentId);
      if (parent !== undefined && parent !== position) {
        const children = this.childPositions[parent] as number | number[];
        if (typeof children === "number") this.childPositions[parent] = -1;
        else {
          children.splice(children.lastIndexOf(position), 1);
          if (children.length === 1) this.childPositions[parent] = children[0] as number;
        }
      } else {
        const early = this.waiting.get(parentId);
        early?.pop();
        if (early?.length === 0) this.waiting.delete(parentId);
      }
    }
    if (step?.adopted) this.waiting.set(record.id, step.adopted);
    if (step?.earlierPosition !== undefined) this.positions.set(record.id, step.earlierPosition);
    else this.positions.delete(record.id);
    if (step?.label) {
      if (step.label.previous) this.labels.set(step.label.targetId, step.label.previous);
      else this.labels.delete(step.label.targetId);
    }
    this.records.pop();
    this.parentIds.pop();
    this.childPositions.pop();
  }

  /** Moves the leaf without adding an entry. */
  setLeaf(id: string | null): void {
    if (id !== null) this.requirePosition(id);
    this.leafId = id;
  }

  /** The header: the first line of the file. */
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

  /** The entry at the leaf, or undefined before the first. */
  getLeafEntry(): SessionEntry | undefined {
    return this.leafId === null ? undefined : this.getEntry(this.leafId);
  }

  /** The entry with this id (the later one when a file reuses an id). */
  getEntry(id: string): SessionEntry | undefined {
    const position = this.positions.get(id);
    return position === undefined ? undefined : this.entryAt(position);
  }

  /** Tells whether an id names an entry of the tree. */
  has(id: string): boolean {
    return this.positions.has(id);
  }

  /** The number of entries in the tree. */
  get size(): number {
    return this.records.length;
  }

  /**
   * When the session was last active, by pi's rule (see `activityTimeOf`): the latest
   * user or assistant message's time, in every branch; undefined before the first.
   */
  get lastActivity(): number | undefined {
    return this.activity;
  }

  private noteActivity(record: EntryRecord, position: number): void {
    let time: number | undefined;
    if (record.entry) time = activityTimeOf(record.entry);
    else if (record.role === "user" || record.role === "assistant") {
      const raw = record.raw;
      const end =
        typeof raw === "string"
          ? raw.slice(-120)
          : raw
            ? tailDecoder.decode(raw.subarray(-120))
            : "";
      time = activityTimeFromLineEnd(end) ?? activityTimeOf(this.entryAt(position));
    } else if (record.role === undefined) time = activityTimeOf(this.entryAt(position));
    if (time !== undefined) this.activity = laterActivity(this.activity, time);
  }

  /** The number of `message` entries, in every branch. */
  get messageCount(): number {
    return this.messages;
  }

  /** The direct children of an entry, in file order. O(children). */
  getChildren(parentId: string): SessionEntry[] {
    const position = this.positions.get(parentId);
    if (position === undefined) return [];
    return this.childrenOf(position).map((child) => this.entryAt(child));
  }

  /** The label set on an entry, if any. */
  getLabel(id: string): string | undefined {
    return this.labels.get(id)?.label;
  }

  /** The session's display name: the last `session_info` in file order, trimmed; empty clears. */
  getSessionName(): string | undefined {
    return this.sessionName;
  }

  /** Every entry of the tree in file order (leaf pointers, which are not entries of the tree, excluded). */
  getEntries(): SessionEntry[] {
    return this.records.map((_, position) => this.entryAt(position));
  }

  /**
   * Entries in file order, parsed one at a time as the caller goes.
   * @param from - the position in file order to start at (0, the first entry, by default)
   */
  *iterateEntries(from = 0): IterableIterator<SessionEntry> {
    for (let position = from; position < this.records.length; position++) {
      yield this.entryAt(position);
    }
  }

  /**
   * The path from the root to an entry (the leaf by default), root first.
   * @throws EntryNotFoundError when `fromId` names no entry
   */
  getBranch(fromId?: string | null): SessionEntry[] {
    const startId = fromId === undefined ? this.leafId : fromId;
    if (startId === null) return [];
    return this.pathTo(this.requirePosition(startId)).map((position) => this.entryAt(position));
  }

  /**
   * The whole session as a forest: roots in file order (entries whose parent is missing
   * count as roots), children sorted by timestamp with ties in file order, labels resolved.
   * Entries are parsed only when a node's `entry` is read.
   */
  getTree(): SessionTreeNode[] {
    const treeNodes: (SessionTreeNode | undefined)[] = [];
    const make = (position: number): SessionTreeNode => {
      const label = this.labels.get((this.records[position] as EntryRecord).id);
      const tree = this;
      const treeNode: SessionTreeNode = {
        get entry() {
          return tree.entryAt(position);
        },
        children: [],
        ...(label ? { label: label.label, labelTimestamp: label.timestamp } : {}),
      };
      treeNodes[position] = treeNode;
      return treeNode;
    };
    const roots: SessionTreeNode[] = [];
    const stack: number[] = [];
    const expand = () => {
      // Iterative: sessions nest thousands of levels deep. Roots are expanded last first,
      // as before; the order of expansion does not change the result.
      while (stack.length > 0) {
        const position = stack.pop() as number;
        const treeNode = treeNodes[position] as SessionTreeNode;
        for (const child of this.sortByTime(this.childrenOf(position))) {
          if (treeNodes[child]) continue;
          treeNode.children.push(make(child));
          stack.push(child);
        }
      }
    };
    for (const position of this.rootPositions()) {
      roots.push(make(position));
      stack.push(position);
    }
    expand();
    // Entries no root reaches hang from a loop of parents: its first entry becomes a root.
    for (const position of this.cycleRoots(treeNodes)) {
      roots.push(make(position));
      stack.push(position);
      expand();
    }
    return roots;
  }

  /**
   * What is wrong with the tree's shape: entries whose parent no entry has (`missing_parent`,
   * shown as roots) and loops of parents (`parent_cycle`, whose first entry is shown as a
   * root), one problem each. Iterative, linear in the entries.
   */
  structureProblems(): LogProblem[] {
    const problems: LogProblem[] = [];
    for (let position = 0; position < this.records.length; position++) {
      const parentId = this.parentIds[position] ?? null;
      const record = this.records[position] as EntryRecord;
      if (parentId === null || parentId === record.id || this.positions.has(parentId)) continue;
      if (this.positions.get(record.id) !== position) continue;
      problems.push({
        kind: "missing_parent",
        line: record.line,
        message: `line ${record.line}: entry "${record.id}" names the parent "${parentId}", which no entry has; it is shown as a root`,
      });
    }
    const reached: boolean[] = [];
    const stack = [...this.rootPositions()];
    const walk = () => {
      while (stack.length > 0) {
        const position = stack.pop() as number;
        if (reached[position]) continue;
        reached[position] = true;
        for (const child of this.childrenOf(position)) if (!reached[child]) stack.push(child);
      }
    };
    walk();
    for (const position of this.cycleRoots(reached)) {
      const record = this.records[position] as EntryRecord;
      problems.push({
        kind: "parent_cycle",
        line: record.line,
        message: `line ${record.line}: the parents of entry "${record.id}" lead round in a loop back to it; it is shown as a root`,
      });
      stack.push(position);
      walk();
    }
    return problems;
  }

  /** Entries that start the tree: no parent, their own parent, or a parent no entry has. */
  private *rootPositions(): Generator<number> {
    for (let position = 0; position < this.records.length; position++) {
      const parentId = this.parentIds[position] ?? null;
      if (
        parentId === null ||
        parentId === (this.records[position] as EntryRecord).id ||
        !this.positions.has(parentId)
      )
        yield position;
    }
  }

  /**
   * For each loop of parents not reached yet, in file order, the loop entry that comes first
   * in the file. `reached` is read as the caller marks what each yielded root reaches.
   */
  private *cycleRoots(reached: readonly unknown[]): Generator<number> {
    const onPath = new Set<number>();
    for (let start = 0; start < this.records.length; start++) {
      if (reached[start]) continue;
      // Walk up from an unreached entry: its ancestors never meet a root, so they loop.
      onPath.clear();
      let position: number | undefined = start;
      while (position !== undefined && !onPath.has(position) && !reached[position]) {
        onPath.add(position);
        position = this.parentPosition(position);
      }
      if (position === undefined || reached[position]) continue;
      // `position` is on the loop: its first entry in the file is the root.
      let first = position;
      for (let p = this.parentPosition(position); p !== undefined && p !== position; ) {
        if (p < first) first = p;
        p = this.parentPosition(p);
      }
      yield first;
    }
  }

  /**
   * What the model is sent for a path ending at `leafId` (the leaf by default); `null`
   * gives an empty context.
   * @throws EntryNotFoundError when `leafId` names no entry
   */
  buildSessionContext(leafId?: string | null): SessionContext {
    const startId = leafId === undefined ? this.leafId : leafId;
    const path = startId === null ? [] : this.pathTo(this.requirePosition(startId));
    const records = this.records;
    return buildContext({
      length: path.length,
      type: (i) => (records[path[i] as number] as EntryRecord).type,
      id: (i) => (records[path[i] as number] as EntryRecord).id,
      role: (i) => {
        const record = records[path[i] as number] as EntryRecord;
        return record.entry
          ? (record.entry as { message?: { role?: string } }).message?.role
          : record.role;
      },
      entry: (i) => this.entryAt(path[i] as number),
    });
  }

  /** Positions from the root to `start`, root first; stops at a cycle in a hostile file. */
  private pathTo(start: number): number[] {
    const path: number[] = [];
    for (let position = start as number | undefined; position !== undefined; ) {
      // Longer than the tree: the parent links loop. Walk again, remembering each step.
      if (path.length > this.records.length) return this.pathWithCycleCheck(start);
      path.push(position);
      position = this.parentPosition(position);
    }
    return path.reverse();
  }

  private pathWithCycleCheck(start: number): number[] {
    const seen = new Set<number>();
    for (let position = start as number | undefined; position !== undefined; ) {
      if (seen.has(position)) break;
      seen.add(position);
      position = this.parentPosition(position);
    }
    return [...seen].reverse();
  }

  private parentPosition(position: number): number | undefined {
    const parentId = this.parentIds[position] ?? null;
    return parentId === null || parentId === (this.records[position] as EntryRecord).id
      ? undefined
      : this.positions.get(parentId);
  }

  private addChild(parent: number, child: number): void {
    const children = this.childPositions[parent] as number | number[];
    if (typeof children !== "number") children.push(child);
    else this.childPositions[parent] = children === -1 ? child : [children, child];
  }

  private childrenOf(position: number): number[] {
    const children = this.childPositions[position] ?? -1;
    if (typeof children !== "number") return children;
    return children === -1 ? [] : [children];
  }

  private requirePosition(id: string): number {
    const position = this.positions.get(id);
    if (position === undefined) throw new EntryNotFoundError(id);
    return position;
  }

  private entryAt(position: number): SessionEntry {
    const record = this.records[position] as EntryRecord;
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

  /** Children by timestamp, ties in file order. */
  private sortByTime(children: number[]): number[] {
    if (children.length < 2) return children;
    return children
      .map((position) => ({
        position,
        time: Date.parse((this.records[position] as EntryRecord).timestamp),
      }))
      .sort((a, b) => a.time - b.time || a.position - b.position)
      .map(({ position }) => position);
  }
}
