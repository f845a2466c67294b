export { type ContextBudget, contextLimit, estimateTokens } from "./context-limit.js";
