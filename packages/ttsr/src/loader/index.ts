export { type MarkdownWithFrontmatter, parseFrontmatter } from "./frontmatter.js";
export {
  type LoadedRules,
  type LoadRulesOptions,
  loadRules,
  parseRuleFile,
  type RuleLoadWarning,
  type RuleSource,
  ruleSources,
} from "./load-rules.js";
