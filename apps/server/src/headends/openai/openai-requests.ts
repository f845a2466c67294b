import { z } from "zod";
import { OpenAiParamError } from "./openai-errors.js";

const MAX_MESSAGES = 2000;

/** A content part of a message: text kinds are read, anything else is refused by name. */
const contentPartSchema = z.looseObject({
  type: z.string().max(100),
  text: z.string().optional(),
});

/** A message's content: a string, or parts. */
const contentSchema = z.union([z.string(), z.array(contentPartSchema).max(1000)]).nullish();

/** One message of `messages` (Chat Completions). */
export const chatMessageSchema = z.looseObject({
  role: z.enum(["system", "developer", "user", "assistant", "tool", "function"]),
  content: contentSchema,
});
/** One message of `messages`. */
export type ChatMessage = z.infer<typeof chatMessageSchema>;

/** `metadata`: string values, as OpenAI takes them. */
const metadataSchema = z.record(z.string().max(64), z.string().max(512)).nullish();

/** The fields of `POST /v1/chat/completions` the headend reads; others are accepted and ignored. */
export const chatCompletionRequestSchema = z.looseObject({
  model: z.string().min(1).max(200),
  messages: z.array(chatMessageSchema).min(1).max(MAX_MESSAGES),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
  metadata: metadataSchema,
});
/** A Chat Completions request. */
export type ChatCompletionRequest = z.infer<typeof chatCompletionRequestSchema>;

/** One item of a Responses `input`: a message (with or without `type: "message"`). */
const inputItemSchema = z.looseObject({
  type: z.string().max(100).optional(),
  role: z.enum(["system", "developer", "user", "assistant"]),
  content: contentSchema,
});

/** The fields of `POST /v1/responses` the headend reads; others are accepted and ignored. */
export const responseRequestSchema = z.looseObject({
  model: z.string().min(1).max(200),
  input: z.union([z.string(), z.array(inputItemSchema).min(1).max(MAX_MESSAGES)]),
  instructions: z.string().nullish(),
  previous_response_id: z.string().max(200).nullish(),
  stream: z.boolean().nullish(),
  store: z.boolean().nullish(),
  metadata: metadataSchema,
});
/** A Responses request. */
export type ResponseRequest = z.infer<typeof responseRequestSchema>;

/**
 * Parses a body with a schema into its value, or throws the first problem as an OpenAI
 * `invalid_request_error` naming the parameter.
 * @throws OpenAiParamError
 */
export function parseOpenAiBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const param = issue?.path.map(String).join(".") ?? "";
  throw new OpenAiParamError(param || "body", `${param || "body"}: ${issue?.message ?? "invalid"}`);
}

/** A message's text: its string, or its text parts joined; other parts are refused. */
export function textOf(content: ChatMessage["content"], param: string): string {
  if (content === undefined || content === null) return "";
  if (typeof content === "string") return content;
  const texts: string[] = [];
  for (const [index, part] of content.entries()) {
    if (typeof part.text !== "string" || !/text$/.test(part.type)) {
      throw new OpenAiParamError(
        `${param}.${index}`,
        `content parts of type "${part.type.slice(0, 100)}" are not supported; send text`,
      );
    }
    texts.push(part.text);
  }
  return texts.join("\n");
}
