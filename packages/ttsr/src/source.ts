import { z } from "zod";

/** The stream a delta belongs to: the answer text, the thinking, or one tool call. */
export const ttsrSourceSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("text") }),
  z.object({ kind: z.literal("thinking") }),
  z.object({
    kind: z.literal("tool"),
    /** The tool call id; each call is its own stream. */
    id: z.string(),
    /** The tool's name, as the model called it. */
    name: z.string(),
    /** File paths the call touches, once known (for `tool:<name>(<glob>)` and `globs`). */
    paths: z.array(z.string()).optional(),
  }),
]);

/** The stream a delta belongs to. */
export type TtsrSource = z.infer<typeof ttsrSourceSchema>;

/** Identifies one stream: text and thinking have one each per message, tools one per call. */
export function streamKey(source: TtsrSource): string {
  return source.kind === "tool" ? `tool:${source.id}` : source.kind;
}
