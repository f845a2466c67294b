import { z } from "zod";

/** A run of plain text inside a message. */
export const textPartSchema = z.object({
  type: z.literal("text"),
  text: z.string(),
});
/** A run of plain text inside a message. */
export type TextPart = z.infer<typeof textPartSchema>;

/** An image attached to a user message or a tool result, as base64 data. */
export const imagePartSchema = z.object({
  type: z.literal("image"),
  /** Base64-encoded bytes, without a `data:` prefix. */
  data: z.string(),
  mimeType: z.string(),
});
/** An image attached to a user message or a tool result, as base64 data. */
export type ImagePart = z.infer<typeof imagePartSchema>;

/**
 * The model's reasoning; `signature` round-trips Anthropic's integrity token. A `redacted`
 * part is reasoning the provider encrypted: `thinking` is empty and `signature` holds the
 * opaque data, which must go back unchanged on the next request.
 */
export const thinkingPartSchema = z.object({
  type: z.literal("thinking"),
  thinking: z.string(),
  signature: z.string().optional(),
  redacted: z.boolean().optional(),
});
/** The model's visible reasoning; `signature` round-trips Anthropic's integrity token. */
export type ThinkingPart = z.infer<typeof thinkingPartSchema>;

/** A tool call the model made, with its parsed JSON arguments. */
export const toolCallPartSchema = z.object({
  type: z.literal("toolCall"),
  id: z.string(),
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()),
});
/** A tool call the model made, with its parsed JSON arguments. */
export type ToolCallPart = z.infer<typeof toolCallPartSchema>;

/** A message written by the user: plain text or text and images. */
export const userMessageSchema = z.object({
  role: z.literal("user"),
  content: z.union([
    z.string(),
    z.array(z.discriminatedUnion("type", [textPartSchema, imagePartSchema])),
  ]),
});
/** A message written by the user: plain text or text and images. */
export type UserMessage = z.infer<typeof userMessageSchema>;

/** An earlier answer of the model: text, thinking and tool calls in the order produced. */
export const assistantMessageSchema = z.object({
  role: z.literal("assistant"),
  content: z.array(
    z.discriminatedUnion("type", [textPartSchema, thinkingPartSchema, toolCallPartSchema]),
  ),
});
/** An earlier answer of the model: text, thinking and tool calls in the order produced. */
export type AssistantMessage = z.infer<typeof assistantMessageSchema>;

/** The result of running one tool call, sent back to the model. */
export const toolResultMessageSchema = z.object({
  role: z.literal("toolResult"),
  toolCallId: z.string(),
  toolName: z.string(),
  content: z.array(z.discriminatedUnion("type", [textPartSchema, imagePartSchema])),
  isError: z.boolean().default(false),
});
/** The result of running one tool call, sent back to the model. */
export type ToolResultMessage = z.input<typeof toolResultMessageSchema>;

/** Any message of a conversation, discriminated on `role`. */
export const modelMessageSchema = z.discriminatedUnion("role", [
  userMessageSchema,
  assistantMessageSchema,
  toolResultMessageSchema,
]);
/** Any message of a conversation, discriminated on `role`. */
export type ModelMessage = z.input<typeof modelMessageSchema>;

/** A tool the model may call; `parameters` is a JSON schema describing the arguments object. */
export const toolDefinitionSchema = z.object({
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, "tool names are 1-64 of [a-zA-Z0-9_-]"),
  description: z.string(),
  parameters: z.record(z.string(), z.unknown()),
});
/** A tool the model may call; `parameters` is a JSON schema describing the arguments object. */
export type ToolDefinition = z.infer<typeof toolDefinitionSchema>;

/** How hard the model should reason before answering; `off` disables extended thinking. */
export const REASONING_LEVELS = ["off", "minimal", "low", "medium", "high"] as const;
/** One of {@link REASONING_LEVELS}. */
export type ReasoningLevel = (typeof REASONING_LEVELS)[number];

/**
 * Where a provider with explicit cache markers (Anthropic) puts a cache breakpoint:
 * after the system prompt, after the last tool, or after the last message (the whole
 * conversation so far, which the next call of the same session starts with).
 */
export const CACHE_BREAKPOINTS = ["system", "tools", "messages"] as const;
/** One of {@link CACHE_BREAKPOINTS}. */
export type CacheBreakpoint = (typeof CACHE_BREAKPOINTS)[number];

/**
 * Prompt-caching hints. `key` is a stable id for the conversation (OpenAI's
 * `prompt_cache_key`, sent only by adapters configured to send it); `breakpoints` lists
 * the prefixes a provider with explicit cache markers should cache (Anthropic
 * `cache_control`, at most its limit of 4). Providers with automatic caching ignore what
 * they do not need; a request without `cache` asks for no explicit caching.
 */
export const cacheHintsSchema = z.object({
  key: z.string().min(1).max(256).optional(),
  breakpoints: z.array(z.enum(CACHE_BREAKPOINTS)).max(4).optional(),
});
/** Prompt-caching hints of a request; see {@link cacheHintsSchema}. */
export type CacheHints = z.infer<typeof cacheHintsSchema>;

/** Everything one model call needs; the abort signal is the only non-serialisable field. */
export const modelRequestSchema = z.object({
  system: z.string().optional(),
  messages: z.array(modelMessageSchema),
  tools: z.array(toolDefinitionSchema).optional(),
  temperature: z.number().min(0).max(2).optional(),
  /** Nucleus sampling (OpenAI `top_p`); not sent to Anthropic, whose API dropped it. */
  topP: z.number().min(0).max(1).optional(),
  /**
   * Top-k sampling: sent as `top_k` by the OpenAI adapter to servers other than OpenAI's
   * own (vLLM, llama.cpp), which read it; OpenAI and Anthropic get none.
   */
  topK: z.number().int().positive().optional(),
  /** OpenAI `frequency_penalty`; Anthropic has none. */
  frequencyPenalty: z.number().min(-2).max(2).optional(),
  /** OpenAI `presence_penalty`; Anthropic has none. */
  presencePenalty: z.number().min(-2).max(2).optional(),
  /** OpenAI `seed`, for reproducible sampling where the server supports it; Anthropic has none. */
  seed: z.number().int().refine(Number.isSafeInteger, "must be a safe integer").optional(),
  /** Stop sequences: OpenAI `stop`, Anthropic `stop_sequences`. */
  stop: z.array(z.string().min(1)).min(1).max(16).readonly().optional(),
  maxOutputTokens: z.number().int().positive().optional(),
  reasoning: z.enum(REASONING_LEVELS).optional(),
  cache: cacheHintsSchema.optional(),
  signal: z.custom<AbortSignal>((value) => value instanceof AbortSignal).optional(),
});
/** Everything one model call needs; the abort signal is the only non-serialisable field. */
export type ModelRequest = z.input<typeof modelRequestSchema>;
