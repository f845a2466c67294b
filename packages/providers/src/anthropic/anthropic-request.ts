import type Anthropic from "@anthropic-ai/sdk";
import { isWrappedSignature } from "../adapter/gemini-signature.js";
import type { ModelInfo } from "../spec/catalogue.js";
import type { ImagePart, ModelRequest, ReasoningLevel, TextPart } from "../spec/request.js";

type Params = Anthropic.Messages.MessageCreateParamsStreaming;
type MessageParam = Anthropic.Messages.MessageParam;
type ContentBlock = Anthropic.Messages.ContentBlockParam;

/** Thinking budgets in tokens per reasoning level (Anthropic's minimum is 1024). */
export const ANTHROPIC_THINKING_BUDGETS: Readonly<Record<Exclude<ReasoningLevel, "off">, number>> =
  {
    minimal: 1024,
    low: 2048,
    medium: 8192,
    high: 16_384,
  };

/** Builds the Messages API body for one Arbor request. */
export function toAnthropicRequest(info: ModelInfo, request: ModelRequest): Params {
  const messages: MessageParam[] = [];
  const push = (role: "user" | "assistant", blocks: ContentBlock[]) => {
    const last = messages[messages.length - 1];
    // Consecutive tool results (and a user turn after them) share one user message.
    if (last && last.role === role && Array.isArray(last.content)) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  for (const message of request.messages) {
    if (message.role === "user") {
      push(
        "user",
        typeof message.content === "string"
          ? [{ type: "text", text: message.content }]
          : message.content.map(toMediaBlock),
      );
    } else if (message.role === "assistant") {
      const blocks: ContentBlock[] = [];
      for (const part of message.content) {
        if (part.type === "text") {
          if (part.text !== "") blocks.push({ type: "text", text: part.text });
        } else if (part.type === "thinking") {
          // Encrypted reasoning goes back exactly as it came. Anthropic rejects thinking it
          // did not sign; unsigned thinking, OpenAI Responses reasoning items and Gemini
          // thought signatures came from another model.
          if (isWrappedSignature(part.signature)) continue;
          if (part.redacted) {
            if (part.signature) blocks.push({ type: "redacted_thinking", data: part.signature });
          } else if (part.signature) {
            blocks.push({ type: "thinking", thinking: part.thinking, signature: part.signature });
          }
        } else {
          blocks.push({ type: "tool_use", id: part.id, name: part.name, input: part.arguments });
        }
      }
      if (blocks.length > 0) messages.push({ role: "assistant", content: blocks });
    } else {
      push("user", [
        {
          type: "tool_result",
          tool_use_id: message.toolCallId,
          content: message.content.map(
            toMediaBlock,
          ) as Anthropic.Messages.ToolResultBlockParam["content"],
          is_error: message.isError ?? false,
        },
      ]);
    }
  }
  let maxTokens = request.maxOutputTokens ?? info.maxOutputTokens;
  const params: Params = { model: info.id, max_tokens: maxTokens, messages, stream: true };
  if (request.system) params.system = request.system;
  if (request.tools && request.tools.length > 0) {
    params.tools = request.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      input_schema: tool.parameters as Anthropic.Messages.Tool.InputSchema,
    }));
  }
  const thinking =
    request.reasoning && request.reasoning !== "off" && info.capabilities.reasoning
      ? ANTHROPIC_THINKING_BUDGETS[request.reasoning]
      : undefined;
  if (thinking !== undefined) {
    // The budget must stay below max_tokens.
    if (maxTokens <= thinking) maxTokens = thinking + 1024;
    params.max_tokens = maxTokens;
    params.thinking = { type: "enabled", budget_tokens: thinking };
  }
  placeCacheBreakpoints(params, request.cache?.breakpoints ?? []);
  if (request.stop !== undefined) params.stop_sequences = [...request.stop];
  // `temperature`, `top_p` and `top_k` are not sent: the current Messages API (and its SDK
  // types) dropped them; it has no penalties or seed either.
  return params;
}

/** The Messages API's limit of `cache_control` markers in one request. */
export const ANTHROPIC_MAX_CACHE_BREAKPOINTS = 4;

const EPHEMERAL = { type: "ephemeral" } as const;

/**
 * Marks the requested prefixes with `cache_control`: the system prompt (turned into one
 * text block), the last tool and the last block of the last message. Each place is marked
 * once, whatever the hints repeat, so the API's limit of 4 markers is never exceeded.
 */
function placeCacheBreakpoints(params: Params, breakpoints: readonly string[]): void {
  const wanted = new Set(breakpoints);
  if (wanted.has("system") && typeof params.system === "string") {
    params.system = [{ type: "text", text: params.system, cache_control: EPHEMERAL }];
  }
  if (wanted.has("tools") && params.tools && params.tools.length > 0) {
    const last = params.tools[params.tools.length - 1] as Anthropic.Messages.Tool;
    params.tools[params.tools.length - 1] = { ...last, cache_control: EPHEMERAL };
  }
  if (wanted.has("messages")) {
    const content = params.messages[params.messages.length - 1]?.content;
    const index = Array.isArray(content) ? lastCacheableBlock(content) : -1;
    if (Array.isArray(content) && index >= 0) {
      content[index] = { ...content[index], cache_control: EPHEMERAL } as ContentBlock;
    }
  }
}

/** Thinking blocks cannot carry `cache_control`; the marker goes on the last other block. */
function lastCacheableBlock(content: readonly ContentBlock[]): number {
  for (let index = content.length - 1; index >= 0; index -= 1) {
    const type = content[index]?.type;
    if (type !== "thinking" && type !== "redacted_thinking") return index;
  }
  return -1;
}

function toMediaBlock(part: TextPart | ImagePart): ContentBlock {
  return part.type === "text"
    ? { type: "text", text: part.text }
    : {
        type: "image",
        source: {
          type: "base64",
          media_type: part.mimeType as Anthropic.Messages.Base64ImageSource["media_type"],
          data: part.data,
        },
      };
}
