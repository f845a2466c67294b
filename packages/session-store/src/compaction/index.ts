export {
  type AbandonedBranch,
  collectAbandonedBranch,
} from "./abandoned-branch.js";
export {
  type CutPoint,
  type CutPointOptions,
  findCutCandidates,
  findCutPoint,
} from "./cut-point.js";
export {
  collectFileOperations,
  DEFAULT_FILE_TOOL_NAMES,
  type FileOperations,
  type FileToolNames,
} from "./file-operations.js";
export { type CompactionPlan, planCompaction } from "./plan.js";
export {
  type ContextSource,
  estimateContextTokens,
  estimateEntryTokens,
  estimateMessageTokens,
  estimateSessionTokens,
  estimateTextTokens,
  IMAGE_TOKEN_ESTIMATE,
  reportedUsageTokens,
  type TokenCounter,
} from "./token-estimate.js";
export {
  DEFAULT_TOOL_RESULT_MAX_CHARS,
  serializeTranscript,
  type TranscriptOptions,
  truncateText,
} from "./transcript.js";
