import type OpenAI from "openai";
import type { ModelInfo } from "../spec/catalogue.js";
import type { ImagePart, ModelRequest, TextPart } from "../spec/request.js";

type Params = OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming;
type Message = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type UserPart = OpenAI.Chat.Completions.ChatCompletionContentPart;

/**
 * Builds the Chat Completions body for one Arbor request. With `sendPromptCacheKey`, the
 * request's `cache.key` goes out as `prompt_cache_key` (OpenAI routes calls with one key
 * to the same prompt cache); servers that reject unknown fields never see it otherwise.
 * With `sendTopK`, the request's `topK` goes out as `top_k` (a field of OpenAI-compatible
 * servers such as vLLM and llama.cpp, not of OpenAI itself).
 */
export function toOpenAIRequest(
  info: ModelInfo,
  request: ModelRequest,
  maxTokensField: "max_completion_tokens" | "max_tokens",
  sendPromptCacheKey = false,
  sendTopK = false,
): Params {
  const messages: Message[] = [];
  if (request.system) messages.push({ role: "system", content: request.system });
  for (const message of request.messages) {
    if (message.role === "user") {
      messages.push({
        role: "user",
        content:
          typeof message.content === "string" ? message.content : message.content.map(toUserPart),
      });
    } else if (message.role === "assistant") {
      const text = message.content.map((part) => (part.type === "text" ? part.text : "")).join("");
      const toolCalls = message.content.flatMap((part) =>
        part.type === "toolCall"
          ? [
              {
                id: part.id,
                type: "function" as const,
                function: { name: part.name, arguments: JSON.stringify(part.arguments) },
              },
            ]
          : [],
      );
      messages.push({
        role: "assistant",
        content: text === "" ? null : text,
        ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
      });
    } else {
      const text = message.content
        .map((part) => (part.type === "text" ? part.text : ""))
        .join("\n");
      messages.push({ role: "tool", tool_call_id: message.toolCallId, content: text });
      // Tool messages carry text only; images travel in a user message right after.
      const images = message.content.filter((part) => part.type === "image");
      if (images.length > 0) messages.push({ role: "user", content: images.map(toUserPart) });
    }
  }
  const params: Params = {
    model: info.id,
    messages,
    stream: true,
    stream_options: { include_usage: true },
  };
  if (request.tools && request.tools.length > 0) {
    params.tools = request.tools.map((tool) => ({
      type: "function",
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }));
  }
  if (request.temperature !== undefined) params.temperature = request.temperature;
  if (request.topP !== undefined) params.top_p = request.topP;
  if (request.frequencyPenalty !== undefined) params.frequency_penalty = request.frequencyPenalty;
  if (request.presencePenalty !== undefined) params.presence_penalty = request.presencePenalty;
  if (request.seed !== undefined) params.seed = request.seed;
  if (request.stop !== undefined) params.stop = [...request.stop];
  // `top_k` is no Chat Completions field: only servers that read it (vLLM, llama.cpp) get it.
  if (sendTopK && request.topK !== undefined) {
    (params as Params & { top_k?: number }).top_k = request.topK;
  }
  if (request.maxOutputTokens !== undefined) params[maxTokensField] = request.maxOutputTokens;
  if (request.reasoning && request.reasoning !== "off" && info.capabilities.reasoning) {
    params.reasoning_effort = request.reasoning;
  }
  if (sendPromptCacheKey && request.cache?.key !== undefined) {
    params.prompt_cache_key = request.cache.key;
  }
  return params;
}

function toUserPart(part: TextPart | ImagePart): UserPart {
  return part.type === "text"
    ? { type: "text", text: part.text }
    : { type: "image_url", image_url: { url: `data:${part.mimeType};base64,${part.data}` } };
}
