import { z } from "zod";
import { MODEL_ERROR_KINDS } from "../error-kind.js";
import { toolCallPartSchema } from "./request.js";

/** Token counts of one call; `input` excludes tokens served from or written to the cache. */
export const usageSchema = z.object({
  input: z.number().int().nonnegative(),
  output: z.number().int().nonnegative(),
  cacheRead: z.number().int().nonnegative(),
  cacheWrite: z.number().int().nonnegative(),
  /** Of `output`, the tokens the model spent reasoning, when the provider reports them. */
  reasoning: z.number().int().nonnegative().optional(),
});
/** Token counts of one call; `input` excludes tokens served from or written to the cache. */
export type Usage = z.infer<typeof usageSchema>;

/**
 * Why the model stopped:
 * - `stop`: it finished its answer;
 * - `length`: it hit the output limit (or the context window while answering);
 * - `tool_use`: it wants the tool calls of the answer run;
 * - `content_filter`: the provider's filter cut the answer;
 * - `refusal`: the model declined to answer (Chat Completions `delta.refusal`, Anthropic's
 *   `refusal` stop reason); the refusal text, if any, is the answer's text;
 * - `pause_turn`: the provider paused a long turn (Anthropic server tools); the caller
 *   continues it by sending the conversation again with this answer appended as is, and no
 *   new user message.
 */
export const STOP_REASONS = [
  "stop",
  "length",
  "tool_use",
  "content_filter",
  "refusal",
  "pause_turn",
] as const;
/** One of {@link STOP_REASONS}. */
export type StopReason = (typeof STOP_REASONS)[number];

const index = z.number().int().nonnegative();

/**
 * One event of a model stream, discriminated on `type`. `index` is the position of the
 * content block (text, thinking or tool call) in the assistant message being built.
 * A stream ends with exactly one `done` or `error` event.
 */
export const modelEventSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("start"), model: z.string() }),
  z.object({ type: z.literal("text_start"), index }),
  z.object({ type: z.literal("text_delta"), index, delta: z.string() }),
  z.object({ type: z.literal("text_end"), index, text: z.string() }),
  z.object({ type: z.literal("thinking_start"), index }),
  z.object({ type: z.literal("thinking_delta"), index, delta: z.string() }),
  /**
   * `redacted`: the provider encrypted this reasoning (Anthropic `redacted_thinking`);
   * `thinking` is empty and `signature` holds the opaque data that must be sent back.
   */
  z.object({
    type: z.literal("thinking_end"),
    index,
    thinking: z.string(),
    signature: z.string().optional(),
    redacted: z.boolean().optional(),
  }),
  z.object({ type: z.literal("toolcall_start"), index, id: z.string(), name: z.string() }),
  /** `delta` is a fragment of the arguments' JSON text, not valid JSON on its own. */
  z.object({ type: z.literal("toolcall_delta"), index, delta: z.string() }),
  z.object({ type: z.literal("toolcall_end"), index, toolCall: toolCallPartSchema }),
  z.object({ type: z.literal("usage"), usage: usageSchema }),
  z.object({ type: z.literal("done"), reason: z.enum(STOP_REASONS) }),
  z.object({
    type: z.literal("error"),
    kind: z.enum(MODEL_ERROR_KINDS),
    message: z.string(),
    /** For `rate_limit`: how long the provider asked us to wait. */
    retryAfterMs: z.number().nonnegative().optional(),
    /** The HTTP status when the failure came with one. */
    status: z.number().int().optional(),
  }),
]);
/** One event of a model stream, discriminated on `type`. */
export type ModelEvent = z.infer<typeof modelEventSchema>;

/** The `error` member of {@link ModelEvent}. */
export type ModelErrorEvent = Extract<ModelEvent, { type: "error" }>;

/** The names of all stream events, in the order they usually appear. */
export const MODEL_EVENT_TYPES = modelEventSchema.options.map((option) => option.shape.type.value);
