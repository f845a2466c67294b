export { ACTIVITY_HEADER, SESSION_HEADER } from "./chat-completions.js";
export { OPENAI_PATHS, openAiErrorBody } from "./openai-errors.js";
export { openAiRoutes } from "./openai-routes.js";
