export { TtsrRuleError } from "./errors.js";
export { type TtsrInjectionRecord, ttsrInjectionRecordSchema } from "./injection-record.js";
export { type RegexParts, translateInlineFlags } from "./inline-flags.js";
export {
  type ResolvedTtsrRule,
  TtsrManager,
  type TtsrManagerOptions,
  type TtsrMatch,
} from "./manager.js";
export { type RenderInterruptOptions, renderInterrupt } from "./render-interrupt.js";
export {
  type ContextMode,
  contextModeSchema,
  type InterruptMode,
  interruptModeSchema,
  type RepeatMode,
  repeatModeSchema,
  type TtsrRule,
  type TtsrRuleInput,
  ttsrRuleSchema,
} from "./rule.js";
export { type TtsrSource, ttsrSourceSchema } from "./source.js";
export {
  type MatcherPattern,
  type PreparedPattern,
  preparePatterns,
  StreamMatcher,
} from "./stream-matcher.js";
