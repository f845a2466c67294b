import { isAbsolute, relative } from "node:path";
import type { TtsrRule } from "./rule.js";

/** Options for {@link renderInterrupt}. */
export interface RenderInterruptOptions {
  /** Rule paths are shown relative to this directory when they lie inside it. */
  projectRoot: string;
}

const escapeAttribute = (value: string) =>
  value
    .replace(/&/g, "&amp;")
    .replace(/"/g, "&quot;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/\n/g, "&#10;");

function displayPath(path: string, projectRoot: string): string {
  if (!path || !isAbsolute(path)) return path;
  const rel = relative(projectRoot, path);
  return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel.replace(/\\/g, "/") : path;
}

/**
 * Renders the reminder injected after an interrupt: one `<system-interrupt>` block per rule.
 * @example
 * ```ts
 * renderInterrupt([rule], { projectRoot: "/repo" });
 * // <system-interrupt reason="rule_violation" rule="no-any" path=".arbor/rules/no-any.md">
 * // ...
 * ```
 */
export function renderInterrupt(
  rules: readonly Pick<TtsrRule, "name" | "path" | "content">[],
  options: RenderInterruptOptions,
): string {
  return rules
    .map((rule) => {
      const path = displayPath(rule.path, options.projectRoot);
      return [
        `<system-interrupt reason="rule_violation" rule="${escapeAttribute(rule.name)}" path="${escapeAttribute(path)}">`,
        "Your output was stopped by this project's rule enforcement: it matched the rule below. " +
          "This is an automatic check, not a message from the user. Follow the rule and continue.",
        "",
        rule.content.trim(),
        "</system-interrupt>",
      ].join("\n");
    })
    .join("\n\n");
}
