import type OpenAI from "openai";
import { decodeResponsesReasoning } from "../adapter/responses-reasoning.js";
import type { ModelInfo } from "../spec/catalogue.js";
import type { ImagePart, ModelMessage, ModelRequest, TextPart } from "../spec/request.js";

type Params = OpenAI.Responses.ResponseCreateParamsStreaming;
type InputItem = OpenAI.Responses.ResponseInputItem;
type InputContent = OpenAI.Responses.ResponseInputContent;

/** What shapes a Responses request beyond the Arbor request itself. */
export interface ResponsesRequestSettings {
  /** `store` on the request; false (stateless) unless the caller chains responses by id. */
  store: boolean;
  /** Ask for `reasoning.encrypted_content`, so reasoning can go back without `store`. */
  encryptedReasoning: boolean;
  /** Send `cache.key` as `prompt_cache_key`. */
  promptCacheKey: boolean;
  /** Chain to this stored response: only the messages after `skipMessages` are sent. */
  previousResponseId?: string | undefined;
  /** How many leading messages the previous response already holds. */
  skipMessages?: number;
}

/**
 * Builds the Responses API body for one Arbor request. Assistant messages go back item by
 * item: reasoning the API returned (its id and encrypted content, kept on the thinking
 * part's `signature`) as a `reasoning` item, text as an assistant message, tool calls as
 * `function_call` items; tool results become `function_call_output` items. Thinking from
 * other providers has no item to go back as and is left out.
 */
export function toResponsesRequest(
  info: ModelInfo,
  request: ModelRequest,
  settings: ResponsesRequestSettings,
): Params {
  const messages = request.messages.slice(settings.skipMessages ?? 0);
  const params: Params = {
    model: info.id,
    input: messages.flatMap(toInputItems),
    stream: true,
    store: settings.store,
  };
  if (request.system) params.instructions = request.system;
  if (settings.previousResponseId !== undefined) {
    params.previous_response_id = settings.previousResponseId;
  }
  if (settings.encryptedReasoning && !settings.store) {
    params.include = ["reasoning.encrypted_content"];
  }
  if (request.tools && request.tools.length > 0) {
    params.tools = request.tools.map((tool) => ({
      type: "function",
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters,
      strict: false,
    }));
  }
  if (request.temperature !== undefined) params.temperature = request.temperature;
  if (request.topP !== undefined) params.top_p = request.topP;
  if (request.maxOutputTokens !== undefined) params.max_output_tokens = request.maxOutputTokens;
  if (request.reasoning && request.reasoning !== "off" && info.capabilities.reasoning) {
    params.reasoning = { effort: request.reasoning, summary: "auto" };
  }
  if (settings.promptCacheKey && request.cache?.key !== undefined) {
    params.prompt_cache_key = request.cache.key;
  }
  return params;
}

function toInputItems(message: ModelMessage): InputItem[] {
  if (message.role === "user") {
    return [
      {
        role: "user",
        content:
          typeof message.content === "string"
            ? message.content
            : message.content.map(toInputContent),
      },
    ];
  }
  if (message.role === "toolResult") {
    const text = message.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
    const items: InputItem[] = [
      { type: "function_call_output", call_id: message.toolCallId, output: text },
    ];
    // Images travel in a user message right after the output, as with Chat Completions.
    const images = message.content.filter((part) => part.type === "image");
    if (images.length > 0) items.push({ role: "user", content: images.map(toInputContent) });
    return items;
  }
  const items: InputItem[] = [];
  let text = "";
  const flushText = () => {
    if (text !== "") items.push({ role: "assistant", content: text });
    text = "";
  };
  for (const part of message.content) {
    if (part.type === "text") {
      text += part.text;
      continue;
    }
    flushText();
    if (part.type === "thinking") {
      const ref = decodeResponsesReasoning(part.signature);
      if (ref === undefined) continue;
      items.push({
        type: "reasoning",
        id: ref.id,
        summary: part.thinking === "" ? [] : [{ type: "summary_text", text: part.thinking }],
        ...(ref.encryptedContent === undefined ? {} : { encrypted_content: ref.encryptedContent }),
      });
    } else {
      items.push({
        type: "function_call",
        call_id: part.id,
        name: part.name,
        arguments: JSON.stringify(part.arguments),
      });
    }
  }
  flushText();
  return items;
}

function toInputContent(part: TextPart | ImagePart): InputContent {
  return part.type === "text"
    ? { type: "input_text", text: part.text }
    : {
        type: "input_image",
        detail: "auto",
        image_url: `data:${part.mimeType};base64,${part.data}`,
      };
}
