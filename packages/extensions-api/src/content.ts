import { contentBlockSchema } from "@arbor/session-store";
import { z } from "zod";

/** A run of plain text in a message or a tool result. */
export const textContentSchema = z.object({
  type: z.literal("text"),
  text: z.string(),
});
/** A run of plain text in a message or a tool result. */
export type TextContent = z.infer<typeof textContentSchema>;

/** An image as base64 data (no `data:` prefix) with its MIME type. */
export const imageContentSchema = z.object({
  type: z.literal("image"),
  data: z.string(),
  mimeType: z.string(),
});
/** An image as base64 data (no `data:` prefix) with its MIME type. */
export type ImageContent = z.infer<typeof imageContentSchema>;

/** What a tool result holds: text and images, as the model receives them. */
export const toolResultContentSchema = z.discriminatedUnion("type", [
  textContentSchema,
  imageContentSchema,
]);
/** What a tool result holds: text and images, as the model receives them. */
export type ToolResultContent = z.infer<typeof toolResultContentSchema>;

/**
 * A message an extension adds to the conversation. It is persisted as a `custom_message`
 * entry: `content` is sent to the model, `display` says whether a UI shows it, `details`
 * is extension data kept beside it and never sent.
 */
export const customMessageInputSchema = z.strictObject({
  customType: z.string().min(1),
  content: z.union([z.string(), z.array(contentBlockSchema)]),
  display: z.boolean(),
  details: z.unknown().optional(),
});
/** A message an extension adds to the conversation; see {@link customMessageInputSchema}. */
export type CustomMessageInput = z.infer<typeof customMessageInputSchema>;

/** What a user message holds when an extension sends one: text, or text and images. */
export const userMessageContentSchema = z.union([
  z.string(),
  z.array(z.discriminatedUnion("type", [textContentSchema, imageContentSchema])),
]);
/** What a user message holds when an extension sends one: text, or text and images. */
export type UserMessageContent = z.infer<typeof userMessageContentSchema>;

/** What a tool's `execute` must return; checked before it reaches the model. */
export const toolExecuteResultSchema = z.strictObject({
  content: z.union([z.string(), z.array(toolResultContentSchema)]),
  details: z.unknown().optional(),
  isError: z.boolean().optional(),
});
