import type { ResolvedTtsrRule } from "@arbor/ttsr";
import type { TriggeredRule } from "./contracts/index.js";

/** The streams a rule without `scope` watches (`@arbor/ttsr`'s default): text and every tool. */
const DEFAULT_RULE_SCOPE = ["text", "tool"] as const;

/** A rule as `ttsr_triggered` carries it (the run's event and the extensions' event alike). */
export function triggeredRule(rule: ResolvedTtsrRule): TriggeredRule {
  return {
    name: rule.name,
    ...(rule.path ? { path: rule.path } : {}),
    content: rule.content,
    scope: [...(rule.scope ?? DEFAULT_RULE_SCOPE)],
    ...(rule.interruptMode !== undefined ? { interruptMode: rule.interruptMode } : {}),
    ...(rule.contextMode !== undefined ? { contextMode: rule.contextMode } : {}),
  };
}
