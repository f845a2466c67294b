import { opendir } from "node:fs/promises";
import { join } from "node:path";
import type { IgnoreRule } from "./gitignore-rules.js";

/** Folders the JS search never enters (ripgrep skips them through .gitignore and hidden rules). */
const SKIPPED_DIRS = new Set(["node_modules", ".git"]);

/** One regular file found by {@link walkWorkspaceFiles}. */
export interface WalkedFile {
  /** The file's real path. */
  path: string;
  /** Its path from the folder walked, with `/` separators. */
  relative: string;
}

/**
 * Walks the regular files below a real folder of the workspace, depth first in name
 * order. Symbolic links are never followed and FIFOs, sockets and devices are skipped,
 * so nothing leads out of the folder or blocks; hidden entries, `node_modules` and what
 * `ignored` names (the root `.gitignore`) are skipped, as ripgrep does by default.
 */
export async function* walkWorkspaceFiles(
  dir: string,
  signal?: AbortSignal,
  prefix = "",
  ignored: IgnoreRule = () => false,
): AsyncGenerator<WalkedFile> {
  const entries = [];
  try {
    for await (const entry of await opendir(dir)) entries.push(entry);
  } catch {
    return; // unreadable folder: nothing to search
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (signal?.aborted) return;
    if (entry.name.startsWith(".") || SKIPPED_DIRS.has(entry.name)) continue;
    const relative = `${prefix}${entry.name}`;
    if (ignored(relative, entry.isDirectory())) continue;
    if (entry.isDirectory()) {
      yield* walkWorkspaceFiles(join(dir, entry.name), signal, `${relative}/`, ignored);
    } else if (entry.isFile()) {
      yield { path: join(dir, entry.name), relative };
    }
  }
}
