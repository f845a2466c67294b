import "./styles.css";
import type { PageData } from "../page-data.js";
import { isCheckpointEntry, knowCheckpoints } from "./checkpoint-entry.js";
import { el, formatTime } from "./dom.js";
import { isToolOnlyAssistant, kindOf, messageOf, searchTextOf } from "./entry-text.js";
import { isOrchestrationEntry, orchestrationSearchText } from "./orchestration-entry.js";
import { type RenderContext, renderEntry } from "./render-entry.js";
import { markMatches } from "./search-highlight.js";
import { TreeView } from "./tree-view.js";

type Filter = "default" | "no-tools" | "user-only" | "labeled" | "all";
type Json = Record<string, unknown>;

const FILTERS: [Filter, string][] = [
  ["default", "Default"],
  ["no-tools", "No tools"],
  ["user-only", "User"],
  ["labeled", "Labeled"],
  ["all", "All"],
];
const SETTINGS_TYPES = new Set([
  "label",
  "custom",
  "model_change",
  "thinking_level_change",
  "session_info",
]);

performance.mark("arbor-start");
const source = document.getElementById("arbor-session");
const data = JSON.parse(source?.textContent ?? "null") as PageData;
performance.mark("arbor-parsed");
knowCheckpoints(data.checkpoints ?? []);
const entries = data.entries as Json[];
const indexById = new Map<string, number>();
entries.forEach((entry, index) => {
  indexById.set(entry.id as string, index);
});

const params = new URLSearchParams(location.search);
let leaf = indexById.get(params.get("leafId") ?? "") ?? indexById.get(data.leafId ?? "") ?? -1;
let selected = indexById.get(params.get("targetId") ?? "") ?? leaf;
let filter: Filter = "default";
let query: string[] = [];
const searchText: (string | undefined)[] = [];
const onPath = new Set<number>();

function isSettings(entry: Json): boolean {
  return (
    SETTINGS_TYPES.has(entry.type as string) &&
    !isOrchestrationEntry(data.orchestration, entry.id as string) &&
    !isCheckpointEntry(entry)
  );
}

function passesFilter(index: number): boolean {
  const entry = entries[index] as Json;
  const id = entry.id as string;
  switch (filter) {
    case "all":
      return true;
    case "user-only":
      return messageOf(entry)?.role === "user";
    case "labeled":
      return data.labels[id] !== undefined;
    case "no-tools": {
      const role = messageOf(entry)?.role;
      if (role === "toolResult" || role === "bashExecution" || isToolOnlyAssistant(entry))
        return false;
      return !isSettings(entry);
    }
    default:
      return !isSettings(entry);
  }
}

function visible(index: number): boolean {
  if (query.length > 0) {
    let text = searchText[index];
    if (text === undefined) {
      const entry = entries[index] as Json;
      const id = entry.id as string;
      text = `${searchTextOf(entry, data.labels[id])}\n${orchestrationSearchText(data.orchestration, id).toLowerCase()}`;
      searchText[index] = text;
    }
    for (const token of query) if (!text.includes(token)) return false;
    return passesFilter(index);
  }
  // The current leaf stays findable in the everyday views.
  return passesFilter(index) || (index === leaf && (filter === "default" || filter === "no-tools"));
}

// ---- layout -------------------------------------------------------------------------

// The exporter writes the layout and its header as static HTML (so they paint early);
// the page adds the sidebar and messages.
const app = document.getElementById("app") as HTMLElement;
const root = app.querySelector<HTMLElement>(".layout") ?? app.appendChild(el("div", "layout"));
root.querySelector("noscript")?.remove();
const sidebar = el("aside", "sidebar");
const main = el("main", "messages");
root.append(sidebar, main);
root.querySelector(".sidebar-toggle")?.addEventListener("click", () => {
  root.classList.toggle("sidebar-open");
});
for (const time of root.querySelectorAll<HTMLTimeElement>("header.top time[datetime]")) {
  time.textContent = formatTime(time.dateTime);
}

// ---- sidebar --------------------------------------------------------------------------

const search = el("input", "search");
search.type = "search";
search.placeholder = "Search messages…";
search.setAttribute("aria-label", "Search messages");
const filterBar = el("div", "filters");
for (const [value, text] of FILTERS) {
  const button = el("button", value === filter ? "filter active" : "filter", text);
  button.type = "button";
  button.dataset.filter = value;
  filterBar.append(button);
}
const status = el("div", "tree-status");
const treeState = { visible, onPath, selected };
const tree = new TreeView(data, treeState, (index) => {
  navigate(index, index, true);
  root.classList.remove("sidebar-open");
});
sidebar.append(search, filterBar, status, tree.element);

function refreshTree(): void {
  tree.refresh();
  status.textContent = `${tree.rowCount} of ${entries.length} entries`;
}

filterBar.addEventListener("click", (event) => {
  const button = (event.target as HTMLElement).closest<HTMLButtonElement>("button.filter");
  if (!button) return;
  filter = button.dataset.filter as Filter;
  for (const b of filterBar.children) b.classList.toggle("active", b === button);
  refreshTree();
});
let searchTimer = 0;
search.addEventListener("input", () => {
  clearTimeout(searchTimer);
  searchTimer = window.setTimeout(() => {
    query = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    refreshTree();
    for (const index of rendered) markMatches(cards.get(index) as HTMLElement, query);
  }, 120);
});

// ---- messages -------------------------------------------------------------------------

const cards = new Map<number, HTMLElement>();
const rendered = new Set<number>();
const observer = new IntersectionObserver(
  (records) => {
    for (const record of records) {
      if (record.isIntersecting) fill(Number((record.target as HTMLElement).dataset.index));
    }
  },
  { rootMargin: "1200px 0px" },
);

// The newest leaf below an entry: follow the latest child down, as a reader would.
function newestLeaf(index: number): number {
  let at = index;
  for (let kids = data.children[at]; kids && kids.length > 0; kids = data.children[at]) {
    at = kids[kids.length - 1] as number;
  }
  return at;
}

function siblingsOf(index: number): number[] {
  const parent = data.parent[index] ?? -1;
  return parent === -1 ? data.roots : (data.children[parent] ?? []);
}

function context(index: number): RenderContext {
  const id = entries[index]?.id as string;
  const siblings = siblingsOf(index);
  const position = siblings.indexOf(index);
  const fork =
    siblings.length > 1
      ? {
          position,
          count: siblings.length,
          go: (delta: number) => {
            const next = siblings[(position + delta + siblings.length) % siblings.length] as number;
            navigate(newestLeaf(next), next, true);
          },
        }
      : undefined;
  return {
    fork,
    label: data.labels[id],
    mark: data.marks[id],
    rendered: data.rendered[id],
    goTo: (target) => {
      const t = indexById.get(target);
      if (t !== undefined) navigate(onPath.has(t) ? leaf : t, t, true);
    },
    has: (target) => indexById.has(target),
    orchestration: {
      view: data.orchestration,
      has: (target) => indexById.has(target),
      open: (target, leafId) => {
        const t = indexById.get(target);
        if (t === undefined) return;
        const given = indexById.get(leafId ?? "");
        const to = given !== undefined && pathTo(given).includes(t) ? given : newestLeaf(t);
        navigate(to, t, true);
      },
    },
  };
}

function fill(index: number): void {
  if (rendered.has(index)) return;
  const card = cards.get(index);
  if (!card) return;
  rendered.add(index);
  observer.unobserve(card);
  card.classList.remove("pending");
  renderEntry(entries[index] as Json, card, context(index));
  if (query.length > 0) markMatches(card, query);
}

function pathTo(index: number): number[] {
  const path: number[] = [];
  for (let i = index; i >= 0; i = data.parent[i] ?? -1) path.push(i);
  return path.reverse();
}

function renderPath(path: number[]): void {
  observer.disconnect();
  cards.clear();
  rendered.clear();
  const fragment = document.createDocumentFragment();
  const intro = el("div", "path-info");
  const leafEntry = entries[leaf];
  intro.textContent = leafEntry
    ? `Path to ${kindOf(leafEntry)} ${String(leafEntry.id)} · ${path.length} entries`
    : "This session has no entries yet.";
  fragment.append(intro);
  // Entries before the latest compaction's first kept entry were replaced by its summary.
  let compactedUntil = -1;
  path.forEach((index, position) => {
    const entry = entries[index] as Json;
    if (entry.type !== "compaction") return;
    const kept = path.indexOf(indexById.get(entry.firstKeptEntryId as string) ?? -2);
    if (kept > 0 && kept <= position) compactedUntil = Math.max(compactedUntil, kept);
  });
  path.forEach((index, position) => {
    const entry = entries[index] as Json;
    const card = el("article", "entry pending");
    card.id = `entry-${String(entry.id)}`;
    card.dataset.index = String(index);
    card.dataset.id = String(entry.id);
    if (position < compactedUntil) card.classList.add("compacted");
    if (siblingsOf(index).length > 1) card.classList.add("fork");
    cards.set(index, card);
    fragment.append(card);
  });
  main.replaceChildren(fragment);
  for (const card of cards.values()) observer.observe(card);
}

function navigate(newLeaf: number, target: number, scroll: boolean): void {
  if (newLeaf !== leaf || cards.size === 0) {
    leaf = newLeaf;
    const path = pathTo(leaf);
    onPath.clear();
    for (const i of path) onPath.add(i);
    renderPath(path);
  }
  selected = target;
  treeState.selected = target;
  for (const card of main.querySelectorAll(".entry.target")) card.classList.remove("target");
  const card = cards.get(target);
  if (card) {
    card.classList.add("target");
    // Render the target and its neighbours before scrolling so it lands where it stays.
    const path = [...cards.keys()];
    const at = path.indexOf(target);
    for (let i = Math.max(0, at - 3); i <= Math.min(path.length - 1, at + 3); i++)
      fill(path[i] as number);
    if (scroll) card.scrollIntoView({ block: "center" });
  }
  refreshTree();
  tree.reveal(target);
  const id = entries[target]?.id;
  const leafId = entries[leaf]?.id;
  if (typeof id === "string" && typeof leafId === "string") {
    try {
      history.replaceState(null, "", `?${new URLSearchParams({ leafId, targetId: id })}`);
    } catch {
      // Some browsers refuse history changes on file:// pages; the page still works.
    }
  }
}

// ---- copy link ----------------------------------------------------------------------

const toast = el("div", "toast");
toast.setAttribute("role", "status");
app.append(toast);

function linkTo(id: string): string {
  const leafId = String(entries[leaf]?.id ?? id);
  const base = location.href.split(/[?#]/)[0];
  return `${base}?${new URLSearchParams({ leafId, targetId: id })}`;
}

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = el("textarea");
    area.value = text;
    document.body.append(area);
    area.select();
    const ok = document.execCommand("copy");
    area.remove();
    return ok;
  }
}

main.addEventListener("click", (event) => {
  const button = (event.target as HTMLElement).closest<HTMLButtonElement>("button.copy-link");
  const card = button?.closest<HTMLElement>(".entry");
  if (!button || !card?.dataset.id) return;
  const link = linkTo(card.dataset.id);
  button.dataset.link = link;
  void copyText(link).then((ok) => {
    toast.textContent = ok ? "Link copied" : link;
    toast.classList.add("show");
    setTimeout(() => toast.classList.remove("show"), 1800);
  });
});

// ---- start ----------------------------------------------------------------------------

if (leaf >= 0) {
  const fromUrl = params.has("targetId") && selected >= 0;
  // A deep-linked target off the leaf's path opens its own path instead.
  if (fromUrl && !pathTo(leaf).includes(selected)) leaf = selected;
  navigate(leaf, selected >= 0 ? selected : leaf, fromUrl);
  if (!fromUrl) main.scrollTop = 0;
} else {
  refreshTree();
  renderPath([]);
}
document.documentElement.dataset.ready = "true";
performance.mark("arbor-ready");
