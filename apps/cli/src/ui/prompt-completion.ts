import { readdirSync, realpathSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import type { LineState } from "./line-editor.js";

/** What Tab did: the new text and, when several fit, the candidates to show. */
export interface Completion {
  state: LineState;
  candidates: string[];
}

/** Where completions come from. */
export interface CompletionSources {
  /** Slash command names, without the `/`. */
  commands: readonly string[];
  /** The entries of a folder of the working directory (folders end in `/`); [] when none. */
  listDir: (dir: string) => readonly string[];
}

function commonPrefix(words: readonly string[]): string {
  const [first = "", ...rest] = words;
  let length = first.length;
  for (const word of rest) {
    while (length > 0 && !word.startsWith(first.slice(0, length))) length -= 1;
  }
  return first.slice(0, length);
}

function replaceBefore(state: LineState, from: number, text: string): LineState {
  return {
    text: state.text.slice(0, from) + text + state.text.slice(state.cursor),
    cursor: from + text.length,
  };
}

/**
 * Completes the word before the cursor: a slash command at the start of the input, or an
 * `@file` mention (a path of the working directory). One match is completed whole (a
 * command or a file gets a space after it, a folder its `/`); several are completed to
 * their common start and listed. Undefined when nothing matches.
 */
export function complete(state: LineState, sources: CompletionSources): Completion | undefined {
  const before = state.text.slice(0, state.cursor);
  // A space ends a completed word unless one follows already.
  const space = /^\s/u.test(state.text.slice(state.cursor)) ? "" : " ";
  const slash = /^\/(\S*)$/u.exec(before);
  if (slash) {
    const typed = slash[1] ?? "";
    const matches = sources.commands.filter((name) => name.startsWith(typed)).sort();
    if (matches.length === 0) return undefined;
    if (matches.length === 1)
      return { state: replaceBefore(state, 0, `/${matches[0]}${space}`), candidates: [] };
    return {
      state: replaceBefore(state, 0, `/${commonPrefix(matches)}`),
      candidates: matches.map((name) => `/${name}`),
    };
  }
  const mention = /(?:^|\s)@(\S*)$/u.exec(before);
  if (!mention) return undefined;
  const path = mention[1] ?? "";
  const slashAt = path.lastIndexOf("/");
  const dir = slashAt < 0 ? "" : path.slice(0, slashAt + 1);
  const base = path.slice(slashAt + 1);
  const matches = sources
    .listDir(dir)
    .filter((entry) => entry.startsWith(base) && (base.startsWith(".") || !entry.startsWith(".")))
    .sort();
  if (matches.length === 0) return undefined;
  const from = state.cursor - path.length;
  if (matches.length === 1) {
    const entry = matches[0] ?? "";
    return {
      state: replaceBefore(state, from, `${dir}${entry}${entry.endsWith("/") ? "" : space}`),
      candidates: [],
    };
  }
  return {
    state: replaceBefore(state, from, `${dir}${commonPrefix(matches)}`),
    candidates: matches.map((entry) => `@${dir}${entry}`),
  };
}

/** The most entries one folder offers to completion. */
const MAX_COMPLETION_ENTRIES = 500;

/**
 * Lists a folder of the working directory for `@file` completion: only one whose real path
 * lies inside it (`..`, absolute paths and links out list nothing); folders end in `/`.
 */
export function workspaceDirLister(cwd: string): (dir: string) => readonly string[] {
  return (dir) => {
    try {
      const root = realpathSync(cwd);
      const real = realpathSync(resolve(root, dir || "."));
      const rel = relative(root, real);
      if (rel.startsWith("..") || isAbsolute(rel)) return [];
      return readdirSync(real, { withFileTypes: true })
        .slice(0, MAX_COMPLETION_ENTRIES)
        .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name));
    } catch {
      return [];
    }
  };
}
