import type { Dirent } from "node:fs";
import { opendir, realpath, stat } from "node:fs/promises";
import { join } from "node:path";
import {
  isInsideRoot,
  kindOf,
  quotePath,
  realWorkspaceRoot,
  resolveInWorkspace,
} from "./workspace-path.js";
import { WorkspaceToolError } from "./workspace-tool-error.js";

/** The most entries one `list_files` call returns. */
export const MAX_LIST_ENTRIES = 500;
/** The deepest `list_files` descends. */
export const MAX_LIST_DEPTH = 5;

/** Options of {@link listWorkspaceDir}. */
export interface ListWorkspaceDirOptions {
  /** Levels listed: 1 is the directory's own entries. Clamped to 1…{@link MAX_LIST_DEPTH}. */
  depth?: number;
  /** The most entries returned. Default {@link MAX_LIST_ENTRIES}. */
  maxEntries?: number;
  signal?: AbortSignal;
}

function describe(entry: Dirent): string {
  if (entry.isDirectory()) return `${entry.name}/`;
  if (entry.isSymbolicLink()) return `${entry.name}@`;
  if (entry.isFile()) return entry.name;
  if (entry.isFIFO()) return `${entry.name} [fifo]`;
  if (entry.isSocket()) return `${entry.name} [socket]`;
  return `${entry.name} [device]`;
}

/**
 * Lists a directory of the workspace for the model, breadth first down to `depth` levels,
 * at most `maxEntries` entries (a note says when it stopped). Symbolic links are shown
 * with a trailing `@` and never followed, so link loops and links out of the workspace
 * lead nowhere; each folder descended into is checked to be inside the workspace again.
 *
 * @throws WorkspaceToolError when the path leads outside, does not exist, or is not a directory
 */
export async function listWorkspaceDir(
  root: string,
  path: string,
  options: ListWorkspaceDirOptions = {},
): Promise<string> {
  const depth = Math.min(MAX_LIST_DEPTH, Math.max(1, Math.floor(options.depth ?? 1)));
  const maxEntries = options.maxEntries ?? MAX_LIST_ENTRIES;
  const realRoot = await realWorkspaceRoot(root);
  const start = await resolveInWorkspace(root, realRoot, path);
  const info = await stat(start);
  if (!info.isDirectory()) {
    throw new WorkspaceToolError(
      "not_a_directory",
      `${quotePath(path)} is ${kindOf(info)}, not a directory.`,
    );
  }
  const lines: string[] = [];
  let queue: Array<{ dir: string; prefix: string }> = [{ dir: start, prefix: "" }];
  for (let level = 1; level <= depth && queue.length > 0; level++) {
    const next: typeof queue = [];
    for (const { dir, prefix } of queue) {
      if (options.signal?.aborted) throw new WorkspaceToolError("aborted", "ls was stopped.");
      // A folder swapped for a link since it was listed must not lead out.
      const real = await realpath(dir).catch(() => undefined);
      if (real === undefined || !isInsideRoot(realRoot, real)) continue;
      const entries: Dirent[] = [];
      // Iterating closes the directory, also when it stops early.
      for await (const entry of await opendir(real)) {
        entries.push(entry);
        if (lines.length + entries.length > maxEntries) break;
      }
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const entry of entries) {
        if (lines.length >= maxEntries) {
          lines.push(`[ls stopped at ${maxEntries} entries; list a subfolder to see more]`);
          return lines.join("\n");
        }
        lines.push(`${prefix}${describe(entry)}`);
        if (entry.isDirectory())
          next.push({ dir: join(real, entry.name), prefix: `${prefix}${entry.name}/` });
      }
    }
    queue = next;
  }
  return lines.join("\n");
}
