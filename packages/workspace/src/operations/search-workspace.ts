import { constants } from "node:fs";
import { open, stat } from "node:fs/promises";
import { relative, sep } from "node:path";
import { workspaceIgnoreRule } from "./gitignore-rules.js";
import { globMatcher } from "./glob-pattern.js";
import { ripgrepAvailable, ripgrepGlobArgs, runRipgrep } from "./ripgrep.js";
import { walkWorkspaceFiles } from "./walk-workspace.js";
import { kindOf, quotePath, realWorkspaceRoot, resolveInWorkspace } from "./workspace-path.js";
import { WorkspaceToolError } from "./workspace-tool-error.js";

/** The most matching lines one `grep` returns. */
export const MAX_GREP_MATCHES = 200;
/** The most characters of one matching line shown. */
export const MAX_GREP_LINE_CHARS = 400;
/** Files larger than this are skipped by the JS search (ripgrep searches them). */
const MAX_JS_SEARCH_BYTES = 8 * 1024 * 1024;

/** A search of the workspace's files. */
export interface WorkspaceSearch {
  pattern: string;
  /** Folder or file to search, relative to the workspace. Default `.`. */
  path?: string;
  /** Only files whose name (or path, with `/`) matches this glob. */
  glob?: string;
  ignoreCase?: boolean;
  /** Match the pattern as plain text, not a regular expression. */
  literal?: boolean;
  /** The most matching lines. Default {@link MAX_GREP_MATCHES}. */
  maxMatches?: number;
}

/** How to search: ripgrep when the binary runs, else JavaScript. */
export interface SearchEngine {
  /** The ripgrep command, or false to always use the JS search. Default `rg`. */
  ripgrep?: string | false;
  signal?: AbortSignal;
}

/** Where a search starts: a real folder or file inside the workspace, and its path from the root. */
export async function searchStart(root: string, path: string) {
  const realRoot = await realWorkspaceRoot(root);
  const real = await resolveInWorkspace(root, realRoot, path);
  const info = await stat(real);
  if (!info.isDirectory() && !info.isFile()) {
    throw new WorkspaceToolError(
      "not_a_regular_file",
      `Refused: ${quotePath(path)} is ${kindOf(info)}; search a folder or a regular file.`,
    );
  }
  const fromRoot = relative(realRoot, real).split(sep).join("/");
  return { realRoot, real, fromRoot, isFile: info.isFile() };
}

const clip = (line: string) =>
  line.length > MAX_GREP_LINE_CHARS ? `${line.slice(0, MAX_GREP_LINE_CHARS)}…` : line;

function compile(search: WorkspaceSearch): RegExp {
  const source = search.literal
    ? search.pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
    : search.pattern;
  try {
    return new RegExp(source, search.ignoreCase ? "i" : "");
  } catch (error) {
    throw new WorkspaceToolError(
      "invalid_pattern",
      `The pattern ${quotePath(search.pattern)} is not a valid regular expression: ${(error as Error).message}`,
    );
  }
}

/**
 * Searches the workspace's text files for lines matching a pattern and returns them as
 * `path:line:text`, paths from the workspace root, at most `maxMatches` lines (a note says
 * when it stopped). Uses ripgrep when it runs here (fast on a large tree; respects
 * `.gitignore`), else a JavaScript search with the same confinement: symlinks are not
 * followed, binary files and special files are skipped.
 *
 * @throws WorkspaceToolError for a path outside the workspace or an invalid pattern
 */
export async function searchWorkspace(
  root: string,
  search: WorkspaceSearch,
  engine: SearchEngine = {},
): Promise<string> {
  const maxMatches = search.maxMatches ?? MAX_GREP_MATCHES;
  const start = await searchStart(root, search.path ?? ".");
  const rg = engine.ripgrep === undefined ? "rg" : engine.ripgrep;
  let lines: string[];
  let truncated: boolean;
  if (rg !== false && (await ripgrepAvailable(rg))) {
    const args = [
      "--line-number",
      "--no-heading",
      "--with-filename",
      "--color=never",
      "--no-config",
    ];
    if (search.ignoreCase) args.push("--ignore-case");
    if (search.literal) args.push("--fixed-strings");
    if (search.glob) args.push(...ripgrepGlobArgs(search.glob));
    args.push("--regexp", search.pattern);
    if (start.fromRoot !== "") args.push("--", start.fromRoot);
    const found = await runRipgrep(rg, args, start.realRoot, {
      maxLines: maxMatches,
      ...(engine.signal ? { signal: engine.signal } : {}),
    });
    if (found.exitCode === 2 && found.lines.length === 0) {
      throw new WorkspaceToolError(
        "invalid_pattern",
        `grep failed: ${found.stderr || "ripgrep error"}`,
      );
    }
    lines = found.lines.map(clip);
    truncated = found.truncated;
  } else {
    ({ lines, truncated } = await searchWithJs(
      start,
      search,
      compile(search),
      maxMatches,
      engine.signal,
    ));
  }
  if (lines.length === 0) return "No matches.";
  if (truncated)
    lines.push(`[grep stopped at ${maxMatches} matches; narrow the pattern or the path]`);
  return lines.join("\n");
}

async function searchWithJs(
  start: Awaited<ReturnType<typeof searchStart>>,
  search: WorkspaceSearch,
  regex: RegExp,
  maxMatches: number,
  signal?: AbortSignal,
): Promise<{ lines: string[]; truncated: boolean }> {
  const matchesGlob = search.glob ? globMatcher(search.glob) : () => true;
  const prefix = start.fromRoot === "" ? "" : `${start.fromRoot}/`;
  const files = start.isFile
    ? [{ path: start.real, relative: start.fromRoot }]
    : walkWorkspaceFiles(start.real, signal, prefix, await workspaceIgnoreRule(start.realRoot));
  const lines: string[] = [];
  for await (const file of files) {
    if (signal?.aborted) throw new WorkspaceToolError("aborted", "grep was stopped.");
    if (!matchesGlob(file.relative.slice(prefix.length))) continue;
    const text = await readSearchable(file.path);
    if (text === undefined) continue;
    const fileLines = text.split("\n");
    for (let index = 0; index < fileLines.length; index++) {
      const line = (fileLines[index] as string).replace(/\r$/, "");
      if (!regex.test(line)) continue;
      if (lines.length >= maxMatches) return { lines, truncated: true };
      lines.push(clip(`${file.relative}:${index + 1}:${line}`));
    }
  }
  return { lines, truncated: false };
}

/** A regular file's text, or undefined for a binary, oversize or unreadable one. */
async function readSearchable(path: string): Promise<string | undefined> {
  const handle = await open(
    path,
    constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0),
  ).catch(() => undefined);
  if (!handle) return undefined;
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.size > MAX_JS_SEARCH_BYTES) return undefined;
    const bytes = await handle.readFile();
    if (bytes.subarray(0, 8192).includes(0)) return undefined;
    return bytes.toString("utf8");
  } finally {
    await handle.close();
  }
}
