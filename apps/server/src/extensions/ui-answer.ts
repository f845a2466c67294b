import { z } from "zod";

/** The longest text answer (`input`, `select`), in characters. */
export const MAX_UI_ANSWER_CHARS = 10_000;

/**
 * The body of `POST /v1/runs/:id/ui/:requestId`: the answer, of the request's kind, or
 * `dismiss` (no answer, as Esc in the terminal app).
 */
export const uiAnswerSchema = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("select"), value: z.string().max(MAX_UI_ANSWER_CHARS) }),
  z.strictObject({ kind: z.literal("confirm"), value: z.boolean() }),
  z.strictObject({ kind: z.literal("input"), value: z.string().max(MAX_UI_ANSWER_CHARS) }),
  z.strictObject({ kind: z.literal("dismiss") }),
]);

/** An answer to a UI request. */
export type UiAnswer = z.infer<typeof uiAnswerSchema>;
