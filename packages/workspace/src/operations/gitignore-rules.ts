import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { globMatcher } from "./glob-pattern.js";

/** Whether a path (from the workspace root, `/` separators) is ignored. */
export type IgnoreRule = (relativePath: string, isDirectory: boolean) => boolean;

/**
 * The simple part of a `.gitignore` for the JS search, so it skips what ripgrep skips in
 * the common case: blank lines and comments are dropped; `name/` matches folders only; a
 * pattern without an inner `/` matches a name in any folder, one with it the path from
 * the root. Negations (`!`) are not supported: such a file's rules are best effort.
 */
export function parseGitignore(text: string): IgnoreRule {
  const rules = text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#") && !line.startsWith("!"))
    .map((line) => {
      const directoryOnly = line.endsWith("/");
      const pattern = line.replace(/\/+$/u, "").replace(/^\//u, "");
      const anchored = line.replace(/\/+$/u, "").includes("/");
      const matches = globMatcher(anchored ? `/${pattern}` : pattern);
      return { directoryOnly, anchored, matches };
    });
  return (relativePath, isDirectory) =>
    rules.some(
      (rule) =>
        (!rule.directoryOnly || isDirectory) &&
        rule.matches(
          rule.anchored ? relativePath : relativePath.slice(relativePath.lastIndexOf("/") + 1),
        ),
    );
}

/** The ignore rule of a workspace's root `.gitignore`; nothing is ignored without one. */
export async function workspaceIgnoreRule(realRoot: string): Promise<IgnoreRule> {
  const text = await readFile(join(realRoot, ".gitignore"), "utf8").catch(() => "");
  return parseGitignore(text);
}
