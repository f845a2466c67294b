export { REDACTED, redactSecrets } from "@arbor/orchestration";
export { CliPrinter, type PrintTarget } from "./cli-printer.js";
export {
  type ContextNotice,
  type ContextNoticeLevel,
  contextNoticeFor,
} from "./context-notices.js";
export { KnownSecrets } from "./known-secrets.js";
export { MIN_SECRET_LENGTH, redactKnownSecrets } from "./redact-secrets.js";
export { type TerminalTextOptions, terminalSafe, terminalSafeJson } from "./terminal-text.js";
export { isUnpriced, UnpricedModels } from "./unpriced-models.js";
