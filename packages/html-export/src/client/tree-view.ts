import type { PageData } from "../page-data.js";
import { el } from "./dom.js";
import { kindOf, summaryOf } from "./entry-text.js";
import { orchestrationSummary } from "./orchestration-entry.js";

/** Pixel height of one sidebar row; fixed so the visible slice is simple arithmetic. */
export const ROW_HEIGHT = 26;
const OVERSCAN = 12;
const INDENT = 14;
const MAX_INDENT_LEVELS = 24;

/** What the sidebar reads from the page each time it draws. */
export interface TreeViewState {
  /** Whether an entry passes the current filter and search. */
  visible(index: number): boolean;
  onPath: Set<number>;
  selected: number;
}

/**
 * The session tree as a virtualized list: the rows are recomputed (a depth-first walk,
 * cheap even for 10,000 entries) when the filter or a collapse changes, and only the
 * rows inside the scroll viewport exist in the DOM.
 */
export class TreeView {
  readonly element: HTMLElement;
  private readonly scroller: HTMLElement;
  private readonly inner: HTMLElement;
  private rows: Int32Array = new Int32Array(0);
  private depths: Uint16Array = new Uint16Array(0);
  private rowOf = new Map<number, number>();
  private readonly collapsed = new Set<number>();
  private readonly summaries: (string | undefined)[] = [];
  private frame = 0;
  /** The slice of rows drawn last, so a scroll or resize that keeps it redraws nothing. */
  private drawn = { first: -1, last: -1 };
  /** The entry whose row the pointer went down on, for a click whose row was redrawn. */
  private pressed: number | undefined;

  constructor(
    private readonly data: PageData,
    private readonly state: TreeViewState,
    private readonly onSelect: (index: number) => void,
  ) {
    this.element = el("div", "tree");
    this.scroller = el("div", "tree-scroll");
    this.scroller.setAttribute("role", "tree");
    this.scroller.setAttribute("aria-label", "Session tree");
    this.scroller.tabIndex = 0;
    this.scroller.addEventListener("keydown", (event) => this.handleKey(event));
    this.inner = el("div", "tree-inner");
    this.scroller.append(this.inner);
    this.element.append(this.scroller);
    this.scroller.addEventListener("scroll", () => this.schedule(), { passive: true });
    this.inner.addEventListener("pointerdown", (event) => {
      const row = (event.target as HTMLElement).closest<HTMLElement>(".tree-row");
      this.pressed = row ? Number(row.dataset.index) : undefined;
    });
    this.inner.addEventListener("click", (event) => this.handleClick(event));
    new ResizeObserver(() => this.schedule()).observe(this.scroller);
  }

  /** Number of rows that pass the filter (and are not inside a collapsed branch). */
  get rowCount(): number {
    return this.rows.length;
  }

  /** Recomputes the rows after a filter, search or collapse change, then redraws. */
  refresh(): void {
    const { children, roots } = this.data;
    const rows: number[] = [];
    const depths: number[] = [];
    const stack: number[] = [];
    const stackDepth: number[] = [];
    for (let r = roots.length - 1; r >= 0; r--) {
      stack.push(roots[r] as number);
      stackDepth.push(roots.length > 1 ? 1 : 0);
    }
    while (stack.length > 0) {
      const index = stack.pop() as number;
      const depth = stackDepth.pop() as number;
      if (this.state.visible(index)) {
        rows.push(index);
        depths.push(depth);
      }
      if (this.collapsed.has(index)) continue;
      const kids = children[index] ?? [];
      // A chain stays at one indent level; only a real fork indents its children.
      const childDepth = kids.length > 1 ? depth + 1 : depth;
      for (let c = kids.length - 1; c >= 0; c--) {
        stack.push(kids[c] as number);
        stackDepth.push(childDepth);
      }
    }
    this.rows = Int32Array.from(rows);
    this.depths = Uint16Array.from(depths);
    this.rowOf = new Map(rows.map((index, row) => [index, row]));
    this.inner.style.height = `${rows.length * ROW_HEIGHT}px`;
    // A shorter list would leave the viewport past its end until the browser clamps it.
    const max = Math.max(0, rows.length * ROW_HEIGHT - this.scroller.clientHeight);
    if (this.scroller.scrollTop > max) this.scroller.scrollTop = max;
    this.draw();
  }

  /** Redraws the visible slice (for a changed path or selection). */
  redraw(): void {
    this.draw();
  }

  /** Scrolls the sidebar so the entry's row is in view, expanding collapsed ancestors. */
  reveal(index: number): void {
    let expanded = false;
    for (let p = this.data.parent[index] ?? -1; p >= 0; p = this.data.parent[p] ?? -1) {
      if (this.collapsed.delete(p)) expanded = true;
    }
    if (expanded) this.refresh();
    const row = this.rowOf.get(index);
    if (row === undefined) return;
    const top = row * ROW_HEIGHT;
    const view = this.scroller.clientHeight;
    if (top < this.scroller.scrollTop || top + ROW_HEIGHT > this.scroller.scrollTop + view) {
      this.scroller.scrollTop = Math.max(0, top - view / 2);
    }
    this.draw();
  }

  /** Redraws after a scroll or resize, once per frame, and only when the slice moved. */
  private schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.draw(false);
    });
  }

  private summary(index: number): string {
    let text = this.summaries[index];
    if (text === undefined) {
      const entry = this.data.entries[index] as Record<string, unknown> & { id: string };
      const view = this.data.orchestration;
      text = orchestrationSummary(view, entry.id) ?? summaryOf(entry);
      const embedded = view.embedded[entry.id];
      if (embedded) text = `⤷ ${embedded.sessionId}: ${text}`;
      this.summaries[index] = text;
    }
    return text;
  }

  /**
   * Renders the visible slice of rows. Without `always`, a slice that did not move is left
   * alone: replacing a row between a press and its release would turn the click into one on
   * the list itself, and the tap would be lost.
   */
  private draw(always = true): void {
    const top = this.scroller.scrollTop;
    const height = this.scroller.clientHeight || 600;
    const first = Math.max(0, Math.floor(top / ROW_HEIGHT) - OVERSCAN);
    const last = Math.min(this.rows.length, Math.ceil((top + height) / ROW_HEIGHT) + OVERSCAN);
    if (!always && first === this.drawn.first && last === this.drawn.last) return;
    this.drawn = { first, last };
    const fragment = document.createDocumentFragment();
    for (let row = first; row < last; row++) fragment.append(this.renderRow(row));
    this.inner.replaceChildren(fragment);
  }

  private renderRow(row: number): HTMLElement {
    const index = this.rows[row] as number;
    const entry = this.data.entries[index] as Record<string, unknown> & { id: string };
    const depth = Math.min(this.depths[row] as number, MAX_INDENT_LEVELS);
    const node = el("div", "tree-row");
    node.setAttribute("role", "treeitem");
    node.dataset.index = String(index);
    node.dataset.id = entry.id;
    node.style.transform = `translateY(${row * ROW_HEIGHT}px)`;
    node.style.paddingLeft = `${4 + depth * INDENT}px`;
    if (this.state.onPath.has(index)) node.classList.add("on-path");
    if (index === this.state.selected) node.classList.add("selected");
    const mark = this.data.marks[entry.id];
    if (mark) node.classList.add(`mark-${mark}`);
    const kids = this.data.children[index]?.length ?? 0;
    if (kids > 1) {
      const toggle = el("button", "toggle", this.collapsed.has(index) ? "▸" : "▾");
      toggle.type = "button";
      toggle.title = this.collapsed.has(index)
        ? `Expand ${kids} branches`
        : `Collapse ${kids} branches`;
      node.setAttribute("aria-expanded", String(!this.collapsed.has(index)));
      node.append(toggle);
    } else {
      node.append(el("span", "toggle-space"));
    }
    const kind = kindOf(entry);
    node.append(el("span", `kind kind-${kind.replace(/[^a-z_-]/gi, "")}`, kindLetter(kind)));
    const label = this.data.labels[entry.id];
    if (label) node.append(el("span", "label", label));
    node.append(el("span", "text", this.summary(index)));
    return node;
  }

  // Arrow keys walk the visible rows and open each one, as clicking would.
  private handleKey(event: KeyboardEvent): void {
    const steps: Record<string, number> = { ArrowDown: 1, ArrowUp: -1, PageDown: 20, PageUp: -20 };
    let row: number | undefined;
    if (event.key === "Home") row = 0;
    else if (event.key === "End") row = this.rows.length - 1;
    else if (steps[event.key] !== undefined) {
      const current = this.rowOf.get(this.state.selected) ?? -1;
      row = Math.min(this.rows.length - 1, Math.max(0, current + (steps[event.key] as number)));
    }
    if (row === undefined || this.rows.length === 0) return;
    event.preventDefault();
    this.onSelect(this.rows[row] as number);
  }

  private handleClick(event: Event): void {
    const target = event.target as HTMLElement;
    const row = target.closest<HTMLElement>(".tree-row");
    if (!row) {
      // The rows were redrawn between press and release: the click lands on the list itself.
      // It still picks the row that was pressed.
      if (target === this.inner && this.pressed !== undefined) this.onSelect(this.pressed);
      return;
    }
    const index = Number(row.dataset.index);
    if (target.classList.contains("toggle")) {
      if (!this.collapsed.delete(index)) this.collapsed.add(index);
      this.refresh();
      return;
    }
    this.onSelect(index);
  }
}

const LETTERS: Record<string, string> = {
  user: "U",
  assistant: "A",
  toolResult: "T",
  bashExecution: "$",
  custom: "C",
  compaction: "≡",
  branch_summary: "↩",
  label: "#",
  model_change: "M",
  thinking_level_change: "θ",
  session_info: "i",
  custom_message: "C",
  ttsr_injection: "!",
};

function kindLetter(kind: string): string {
  return LETTERS[kind] ?? "·";
}
