export { classifyGeminiError } from "./gemini-errors.js";
export { createGeminiModel, type GeminiModelOptions } from "./gemini-model.js";
export { GEMINI_THINKING_BUDGETS, toGeminiRequest } from "./gemini-request.js";
