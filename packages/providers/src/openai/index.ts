export { createOpenAIChatModel, type OpenAIChatModelOptions } from "./openai-chat-model.js";
export { toOpenAIRequest } from "./openai-request.js";
