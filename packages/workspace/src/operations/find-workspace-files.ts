import { workspaceIgnoreRule } from "./gitignore-rules.js";
import { globMatcher } from "./glob-pattern.js";
import { ripgrepAvailable, ripgrepGlobArgs, runRipgrep } from "./ripgrep.js";
import type { SearchEngine } from "./search-workspace.js";
import { searchStart } from "./search-workspace.js";
import { walkWorkspaceFiles } from "./walk-workspace.js";
import { WorkspaceToolError } from "./workspace-tool-error.js";

/** The most paths one `find` returns. */
export const MAX_FIND_RESULTS = 1000;

/**
 * Finds the workspace's files whose name (or, for a pattern with `/`, path from the
 * searched folder) matches a glob, and returns their paths from the workspace root, at
 * most `maxResults` (a note says when it stopped). ripgrep (`rg --files`) when it runs
 * here, else a JavaScript walk with the same rules: symlinks not followed, hidden entries
 * and `node_modules` skipped.
 *
 * @throws WorkspaceToolError for a path outside the workspace
 */
export async function findWorkspaceFiles(
  root: string,
  pattern: string,
  path = ".",
  engine: SearchEngine & { maxResults?: number } = {},
): Promise<string> {
  const maxResults = engine.maxResults ?? MAX_FIND_RESULTS;
  const start = await searchStart(root, path);
  const prefix = start.fromRoot === "" ? "" : `${start.fromRoot}/`;
  const rg = engine.ripgrep === undefined ? "rg" : engine.ripgrep;
  let paths: string[] = [];
  let truncated = false;
  if (rg !== false && (await ripgrepAvailable(rg))) {
    const args = [
      "--files",
      "--color=never",
      "--no-config",
      "--sort=path",
      ...ripgrepGlobArgs(pattern),
    ];
    if (start.fromRoot !== "") args.push("--", start.fromRoot);
    const found = await runRipgrep(rg, args, start.realRoot, {
      maxLines: maxResults,
      ...(engine.signal ? { signal: engine.signal } : {}),
    });
    if (found.exitCode === 2 && found.lines.length === 0 && found.stderr) {
      throw new WorkspaceToolError("invalid_pattern", `find failed: ${found.stderr}`);
    }
    ({ lines: paths, truncated } = found);
  } else {
    const matches = globMatcher(pattern);
    const files = start.isFile
      ? [{ path: start.real, relative: start.fromRoot }]
      : walkWorkspaceFiles(
          start.real,
          engine.signal,
          prefix,
          await workspaceIgnoreRule(start.realRoot),
        );
    for await (const file of files) {
      if (!matches(file.relative.slice(prefix.length))) continue;
      if (paths.length >= maxResults) {
        truncated = true;
        break;
      }
      paths.push(file.relative);
    }
  }
  if (paths.length === 0) return "No files found.";
  if (truncated)
    paths.push(`[find stopped at ${maxResults} paths; narrow the pattern or the path]`);
  return paths.join("\n");
}
