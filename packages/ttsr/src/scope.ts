import { globToRegExp, matchesGlob } from "./glob.js";
import type { TtsrSource } from "./source.js";

/** One parsed entry of a rule's `scope`. */
export type RuleScope =
  | { kind: "text" }
  | { kind: "thinking" }
  | { kind: "tool"; name?: string; glob?: RegExp };

const toolScopePattern = /^tool(?::([^()\s]+)(?:\((.+)\))?)?$/;

/**
 * Parses one scope string: `text`, `thinking`, `tool`, `tool:<name>` or
 * `tool:<name>(<glob>)`.
 * @returns the scope, or `undefined` when the string is none of these
 */
export function parseScope(scope: string): RuleScope | undefined {
  const trimmed = scope.trim();
  if (trimmed === "text" || trimmed === "thinking") return { kind: trimmed };
  const m = toolScopePattern.exec(trimmed);
  if (!m) return undefined;
  return {
    kind: "tool",
    ...(m[1] && m[1] !== "*" ? { name: m[1] } : {}),
    ...(m[2] ? { glob: globToRegExp(m[2]) } : {}),
  };
}

/** True when the scope covers the source (tool paths are checked against the glob). */
export function scopeReaches(scope: RuleScope, source: TtsrSource): boolean {
  if (scope.kind !== source.kind) return false;
  if (scope.kind !== "tool" || source.kind !== "tool") return true;
  if (scope.name !== undefined && scope.name !== source.name) return false;
  const glob = scope.glob;
  if (glob === undefined) return true;
  return (source.paths ?? []).some((p) => matchesGlob(glob, p));
}
