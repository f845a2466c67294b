import { el } from "./dom.js";

type Json = Record<string, unknown>;

/** The checkpoint entries of the page (the export found and checked them: `PageData.checkpoints`). */
const checkpointIds = new Set<string>();

/** Tells the page which entries are workspace checkpoints; called once, before rendering. */
export function knowCheckpoints(ids: readonly string[]): void {
  for (const id of ids) checkpointIds.add(id);
}
/** The most paths one card lists; the rest are counted. */
const MAX_SHOWN_PATHS = 200;

const REASONS: Record<string, string> = {
  before_tool: "before a tool (changes made by hand or elsewhere)",
  after_tool: "after a tool",
  before_rewind: "before a rewind (undo point)",
  rewind: "files brought back",
};

/** The paths a checkpoint entry names, read defensively (a session file may be hostile). */
function pathsOf(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item) => {
    const path = typeof item === "string" ? item : (item as Json | null)?.path;
    return typeof path === "string" ? [path.slice(0, 4096)] : [];
  });
}

/** The checkpoint data of an entry, or undefined when it is no checkpoint entry. */
function checkpointOf(entry: Json): Json | undefined {
  if (entry.type !== "custom" || !checkpointIds.has(entry.id as string)) return undefined;
  const data = entry.data;
  return data !== null && typeof data === "object" && !Array.isArray(data)
    ? (data as Json)
    : undefined;
}

/** Whether an entry is a workspace checkpoint (shown by default, not as settings). */
export function isCheckpointEntry(entry: Json): boolean {
  return checkpointOf(entry) !== undefined;
}

/** The one-line summary of a checkpoint for the tree sidebar and search. */
export function checkpointSummary(entry: Json): string | undefined {
  const data = checkpointOf(entry);
  if (!data) return undefined;
  const changed = pathsOf(data.changed);
  const total = typeof data.changedCount === "number" ? data.changedCount : changed.length;
  if (total === 0) return "files: unchanged";
  return `files: ${changed.slice(0, 5).join(", ")}${total > 5 ? ` … (${total})` : ""}`;
}

/** Renders a checkpoint card: why it was taken and the files changed; false for other entries. */
export function renderCheckpoint(entry: Json, body: HTMLElement, card: HTMLElement): boolean {
  const data = checkpointOf(entry);
  if (!data) return false;
  card.classList.add("checkpoint");
  const reason = typeof data.reason === "string" ? data.reason : "";
  body.append(el("div", "checkpoint-title", `Files · ${REASONS[reason] ?? "checkpoint"}`));
  const changed = pathsOf(data.changed);
  const total = typeof data.changedCount === "number" ? data.changedCount : changed.length;
  if (total === 0) {
    body.append(el("div", "note", "No file changed since the checkpoint before."));
  } else {
    const list = el("ul", "checkpoint-files");
    for (const path of changed.slice(0, MAX_SHOWN_PATHS)) list.append(el("li", undefined, path));
    body.append(list);
    const hidden = total - Math.min(changed.length, MAX_SHOWN_PATHS);
    if (hidden > 0) body.append(el("div", "note", `… and ${hidden} more`));
  }
  const skipped = pathsOf(data.skipped);
  if (skipped.length > 0) {
    body.append(
      el("div", "note", `Not kept (too large or unreadable): ${skipped.slice(0, 20).join(", ")}`),
    );
  }
  if (typeof data.snapshotId === "string") {
    body.append(el("div", "checkpoint-id", `snapshot ${data.snapshotId.slice(0, 12)}`));
  }
  return true;
}
