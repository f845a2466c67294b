import type { SessionEntry, SessionHeader } from "./format/entries.js";
import type { LogProblem } from "./format/session-log.js";
import { firstUserText, titleFromText } from "./title.js";
import type { SessionContext } from "./tree/session-context.js";
import type { SessionTree, SessionTreeNode } from "./tree/session-tree.js";

/**
 * The read side of a {@link Session}: pi's getters over the session's tree, and its title.
 * Kept apart from the writing side so each stays one idea.
 */
export abstract class SessionReader {
  /** The first user message's text once found, and how many entries were searched for it. */
  private firstUser: { text: string | undefined; searched: number } = {
    text: undefined,
    searched: 0,
  };

  protected constructor(
    protected readonly tree: SessionTree,
    protected readonly titleLength: number,
  ) {}

  /** Where the session is stored (a file path for the file backend). */
  abstract get location(): string;

  /** The session id from the header. */
  get id(): string {
    return this.tree.getHeader().id;
  }

  /**
   * Problems found in the stored lines (broken lines, a torn tail, duplicate ids) and in the
   * tree's shape when it was opened (missing parents, loops of parents).
   */
  get problems(): readonly LogProblem[] {
    return this.structure.length === 0
      ? this.tree.problems
      : [...this.tree.problems, ...this.structure];
  }

  /** The tree's shape problems as last checked (at open, and by {@link verify}). */
  private structure: readonly LogProblem[] = [];

  /** Checks the tree's shape again (missing parents, loops of parents). */
  protected checkStructure(): void {
    this.structure = this.tree.structureProblems();
  }

  /** The header: the first line of the file. */
  getHeader(): SessionHeader {
    return this.tree.getHeader();
  }
  /** The id of the entry the next append becomes a child of, or null before the first. */
  getLeafId(): string | null {
    return this.tree.getLeafId();
  }
  /** The entry at the leaf, or undefined before the first. */
  getLeafEntry(): SessionEntry | undefined {
    return this.tree.getLeafEntry();
  }
  /** The entry with this id (the later one when a file reuses an id). */
  getEntry(id: string): SessionEntry | undefined {
    return this.tree.getEntry(id);
  }
  /** The direct children of an entry, in file order. O(children). */
  getChildren(parentId: string): SessionEntry[] {
    return this.tree.getChildren(parentId);
  }
  /**
   * The path from the root to an entry (the leaf by default), root first.
   * @throws EntryNotFoundError when `fromId` names no entry
   */
  getBranch(fromId?: string | null): SessionEntry[] {
    return this.tree.getBranch(fromId);
  }
  /** The whole session as a forest: roots in file order, children by time, labels resolved. */
  getTree(): SessionTreeNode[] {
    return this.tree.getTree();
  }
  /** The label set on an entry, if any. */
  getLabel(id: string): string | undefined {
    return this.tree.getLabel(id);
  }
  /** Every entry in file order (leaf pointers excluded). */
  getEntries(): SessionEntry[] {
    return this.tree.getEntries();
  }
  /** The name set by the last `session_info` entry, if any. */
  getSessionName(): string | undefined {
    return this.tree.getSessionName();
  }
  /**
   * What the model is sent for the path ending at `leafId` (the leaf by default), with pi's
   * rules: the latest compaction's summary first, kept entries from its `firstKeptEntryId`,
   * branch summaries and custom messages as messages; `null` gives an empty context.
   * @throws EntryNotFoundError when `leafId` names no entry
   */
  buildSessionContext(leafId?: string | null): SessionContext {
    return this.tree.buildSessionContext(leafId);
  }

  /**
   * Parses every lazily kept line and reports what is broken, the tree's shape included
   * (every entry stays reachable in {@link getTree}: a loop's first entry is shown as a
   * root). Opening reads large lines from their first bytes only; this reads them whole.
   */
  verify(): readonly LogProblem[] {
    this.tree.getEntries();
    this.checkStructure();
    return this.problems;
  }

  /** The title: the name set on the session, or one made from the first user message. */
  getTitle(): string | undefined {
    const name = this.tree.getSessionName();
    if (name) return name;
    const first = this.firstUserMessage();
    return first === undefined ? undefined : titleFromText(first, this.titleLength);
  }

  /** Forgets what was worked out from the entries (after entries were taken out again). */
  protected forgetDerivedState(): void {
    this.firstUser = { text: undefined, searched: 0 };
  }

  /** The first user message's text; entries already searched are not searched again. */
  protected firstUserMessage(): string | undefined {
    if (this.firstUser.text === undefined && this.firstUser.searched < this.tree.size) {
      const text = firstUserText(this.tree.iterateEntries(this.firstUser.searched));
      this.firstUser = { text, searched: this.tree.size };
    }
    return this.firstUser.text;
  }
}
