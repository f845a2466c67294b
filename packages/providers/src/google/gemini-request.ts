import type { Content, GenerateContentParameters, Part } from "@google/genai";
import { decodeGeminiSignature } from "../adapter/gemini-signature.js";
import type { ModelInfo } from "../spec/catalogue.js";
import type {
  AssistantMessage,
  ImagePart,
  ModelMessage,
  ModelRequest,
  ReasoningLevel,
  TextPart,
} from "../spec/request.js";
import { GENERATED_CALL_ID } from "./gemini-ids.js";

/** Thinking budgets (tokens) per reasoning level, for Gemini's `thinkingConfig`. */
export const GEMINI_THINKING_BUDGETS: Readonly<Record<Exclude<ReasoningLevel, "off">, number>> = {
  minimal: 512,
  low: 2_048,
  medium: 8_192,
  high: 24_576,
};

/**
 * Builds the `generateContentStream` parameters for one Arbor request. Assistant turns go
 * back as `model` contents with their text and function calls; a thinking part whose
 * signature holds a Gemini thought signature puts that signature back on the part it came
 * with. Tool results become `functionResponse` parts of one `user` content.
 */
export function toGeminiRequest(
  info: ModelInfo,
  request: ModelRequest,
  signal: AbortSignal,
): GenerateContentParameters {
  const contents: Content[] = [];
  const push = (role: "user" | "model", parts: Part[]) => {
    if (parts.length === 0) return;
    const last = contents.at(-1);
    // Consecutive tool results (and what follows them) share one turn.
    if (last?.role === role && role === "user") last.parts?.push(...parts);
    else contents.push({ role, parts });
  };
  for (const message of request.messages) {
    if (message.role === "user") {
      push(
        "user",
        typeof message.content === "string"
          ? [{ text: message.content }]
          : message.content.map(toMediaPart),
      );
    } else if (message.role === "assistant") {
      push("model", toModelParts(message));
    } else {
      push("user", toolResultParts(message));
    }
  }
  const config: NonNullable<GenerateContentParameters["config"]> = {
    abortSignal: signal,
    // Arbor runs tools itself and owns retries and continuation.
    automaticFunctionCalling: { disable: true },
    automaticContinuation: false,
  };
  if (request.system) config.systemInstruction = request.system;
  if (request.tools && request.tools.length > 0) {
    config.tools = [
      {
        functionDeclarations: request.tools.map((tool) => ({
          name: tool.name,
          description: tool.description,
          parametersJsonSchema: tool.parameters,
        })),
      },
    ];
  }
  if (request.temperature !== undefined) config.temperature = request.temperature;
  if (request.topP !== undefined) config.topP = request.topP;
  if (request.topK !== undefined) config.topK = request.topK;
  if (request.frequencyPenalty !== undefined) config.frequencyPenalty = request.frequencyPenalty;
  if (request.presencePenalty !== undefined) config.presencePenalty = request.presencePenalty;
  if (request.seed !== undefined) config.seed = request.seed;
  if (request.stop !== undefined) config.stopSequences = [...request.stop];
  if (request.maxOutputTokens !== undefined) config.maxOutputTokens = request.maxOutputTokens;
  if (info.capabilities.reasoning && request.reasoning !== undefined) {
    config.thinkingConfig =
      request.reasoning === "off"
        ? { thinkingBudget: 0 }
        : { includeThoughts: true, thinkingBudget: GEMINI_THINKING_BUDGETS[request.reasoning] };
  }
  return { model: info.id, contents, config };
}

function toModelParts(message: AssistantMessage): Part[] {
  const parts: Part[] = [];
  /** A signature waiting for the next text or function call part. */
  let pending: string | undefined;
  for (const part of message.content) {
    if (part.type === "thinking") {
      const signature = decodeGeminiSignature(part.signature);
      if (signature === undefined) continue;
      if (pending !== undefined) {
        // Two signatures in a row: the first belongs to the part before it.
        const previous = parts.at(-1);
        if (previous) previous.thoughtSignature = pending;
      }
      pending = signature;
      continue;
    }
    const next: Part =
      part.type === "text"
        ? { text: part.text }
        : {
            functionCall: {
              ...(part.id.startsWith(GENERATED_CALL_ID) ? {} : { id: part.id }),
              name: part.name,
              args: part.arguments,
            },
          };
    if (pending !== undefined) {
      next.thoughtSignature = pending;
      pending = undefined;
    }
    parts.push(next);
  }
  if (pending !== undefined) {
    const last = parts.at(-1);
    if (last) last.thoughtSignature = pending;
  }
  return parts;
}

function toolResultParts(message: Extract<ModelMessage, { role: "toolResult" }>): Part[] {
  const text = message.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
  const parts: Part[] = [
    {
      functionResponse: {
        ...(message.toolCallId.startsWith(GENERATED_CALL_ID) ? {} : { id: message.toolCallId }),
        name: message.toolName,
        response: message.isError ? { error: text } : { output: text },
      },
    },
  ];
  for (const part of message.content) if (part.type === "image") parts.push(toMediaPart(part));
  return parts;
}

function toMediaPart(part: TextPart | ImagePart): Part {
  return part.type === "text"
    ? { text: part.text }
    : { inlineData: { mimeType: part.mimeType, data: part.data } };
}
