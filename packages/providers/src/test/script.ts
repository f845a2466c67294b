import { z } from "zod";
import { MODEL_ERROR_KINDS } from "../error-kind.js";
import { STOP_REASONS, type Usage } from "../spec/events.js";

/** One content block of a scripted answer. */
export const scriptBlockSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), text: z.string() }),
  z.object({
    type: z.literal("thinking"),
    thinking: z.string(),
    signature: z.string().optional(),
    /** Reasoning the provider encrypted (Anthropic `redacted_thinking`): `signature` holds it. */
    redacted: z.boolean().optional(),
  }),
  z.object({
    type: z.literal("toolCall"),
    id: z.string().optional(),
    name: z.string(),
    arguments: z.record(z.string(), z.unknown()).optional(),
    /** Raw argument JSON sent instead of `arguments`, to script broken JSON. */
    argumentsText: z.string().optional(),
  }),
]);
/** One content block of a scripted answer. */
export type ScriptBlock = z.infer<typeof scriptBlockSchema>;

/** A failure injected into a scripted answer. */
export const scriptErrorSchema = z.object({
  kind: z.enum(MODEL_ERROR_KINDS),
  message: z.string().optional(),
  /** Deltas delivered before the failure; 0 fails before the stream opens. */
  afterDeltas: z.number().int().nonnegative().default(0),
  /** For `rate_limit`: the wait the provider asks for. */
  retryAfterMs: z.number().int().nonnegative().optional(),
  /**
   * The HTTP status the failure carries (e.g. 501 for a `model_error` that retrying will
   * not fix). The scripted model puts it on the error event; the fake servers answer with it.
   */
  status: z.number().int().min(400).max(599).optional(),
});
/** A failure injected into a scripted answer. */
export type ScriptError = z.infer<typeof scriptErrorSchema>;

const scriptedResponseObjectSchema = z.object({
  blocks: z.array(scriptBlockSchema).default([]),
  usage: z
    .object({
      input: z.number().int().nonnegative(),
      output: z.number().int().nonnegative(),
      cacheRead: z.number().int().nonnegative().default(0),
      cacheWrite: z.number().int().nonnegative().default(0),
      /** Of `output`, reasoning tokens (sent by the wires that report them). */
      reasoning: z.number().int().nonnegative().optional(),
    })
    .optional(),
  /** Defaults to `tool_use` when a tool call is scripted, else `stop`. */
  stopReason: z.enum(STOP_REASONS).optional(),
  /** Characters per delta: 1 splits everywhere, `"block"` sends each block whole. */
  chunkSize: z.union([z.number().int().positive(), z.literal("block")]).default("block"),
  /** Pause before each delta, for abort and timing tests. */
  delayMs: z.number().nonnegative().default(0),
  error: scriptErrorSchema.optional(),
});

/**
 * One scripted model answer. A bare string is shorthand for a single text block.
 *
 * @example
 * ```ts
 * scriptedResponseSchema.parse({ blocks: [{ type: "text", text: "Hi" }], chunkSize: 1 });
 * ```
 */
export const scriptedResponseSchema = z.union([
  z
    .string()
    .transform((text) => scriptedResponseObjectSchema.parse({ blocks: [{ type: "text", text }] })),
  scriptedResponseObjectSchema,
]);
/** A parsed scripted answer with defaults applied. */
export type ScriptedResponse = z.output<typeof scriptedResponseSchema>;
/** A scripted answer as written by hand (string shorthand, defaults optional). */
export type ScriptedResponseInput = z.input<typeof scriptedResponseSchema>;

/** Default usage reported when a script names none. */
export const DEFAULT_SCRIPT_USAGE: Readonly<Usage> = {
  input: 10,
  output: 5,
  cacheRead: 0,
  cacheWrite: 0,
};

/** The id a scripted tool call gets when the script names none. */
export function scriptToolCallId(responseBlockIndex: number): string {
  return `call_${responseBlockIndex}`;
}

/** Splits text into deltas of `size` code points (never halves a surrogate pair). */
export function chunkText(text: string, size: number | "block"): string[] {
  if (text === "") return [];
  if (size === "block") return [text];
  const points = Array.from(text);
  const chunks: string[] = [];
  for (let i = 0; i < points.length; i += size) chunks.push(points.slice(i, i + size).join(""));
  return chunks;
}

/** The argument JSON a scripted tool call streams. */
export function scriptArgumentsText(block: Extract<ScriptBlock, { type: "toolCall" }>): string {
  return block.argumentsText ?? JSON.stringify(block.arguments ?? {});
}

/** The stop reason a script ends with. */
export function scriptStopReason(response: ScriptedResponse) {
  return (
    response.stopReason ??
    (response.blocks.some((block) => block.type === "toolCall") ? "tool_use" : "stop")
  );
}

/** The default human-readable message of a scripted failure. */
export function scriptErrorMessage(error: ScriptError): string {
  return error.message ?? `scripted ${error.kind}`;
}
