// Building blocks for sibling Arbor packages; not part of the stable public API.
export { globToRegExp, matchesGlob } from "../glob.js";
export { analyzePattern, type PatternAnalysis } from "../pattern-analysis.js";
export { type CompiledRule, compileRule, unreachableReason } from "../rule.js";
export { parseScope, type RuleScope, scopeReaches } from "../scope.js";
