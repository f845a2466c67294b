export {
  AgentCompaction,
  type AgentCompactionOptions,
  type AgentCompactionOutcome,
  compactionEvent,
} from "./agent-compaction.js";
export {
  type BranchSummary,
  type BranchSummaryOptions,
  type BranchSummaryPreparation,
  summarizeAbandonedBranch,
  summarizeBranchWithModel,
} from "./branch-summary.js";
export {
  type BeforeCompactResult,
  type CompactionHooks,
  type CompactionOutcome,
  type CompactionPreparation,
  type CompactionReason,
  type CompactionResult,
  type CompactOptions,
  compact,
  summaryTokenBudget,
} from "./compact.js";
export {
  type CompactionTrail,
  collectCompactionTrail,
  commandEndingOf,
  MAX_TRAIL_COMMANDS,
  type TrailCommand,
  withoutTrail,
  withTrail,
} from "./compaction-trail.js";
export { requestText, type TextAnswer, type TextRequest } from "./model-text.js";
export {
  BRANCH_SUMMARY_PROMPT,
  INITIAL_SUMMARY_PROMPT,
  SUMMARIZER_SYSTEM_PROMPT,
  TITLE_SYSTEM_PROMPT,
  TURN_PREFIX_PROMPT,
  UPDATE_SUMMARY_PROMPT,
} from "./prompts.js";
export {
  type CompactionBudget,
  type CompactionSettings,
  compactionBudget,
  DEFAULT_COMPACTION_SETTINGS,
  resolveCompactionSettings,
  shouldCompact,
} from "./settings.js";
export { SummaryError, type SummaryErrorCode } from "./summary-error.js";
export {
  cleanTitle,
  createTitleGenerator,
  MAX_TITLE_WORDS,
  MIN_TITLE_WORDS,
  type TitleGeneratorOptions,
  titleWords,
} from "./title-generator.js";
