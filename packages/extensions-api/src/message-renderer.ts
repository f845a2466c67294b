import type { ContentBlock } from "@arbor/session-store";
import { z } from "zod";

/** A `custom_message` as a renderer receives it (a copy: changing it changes nothing). */
export interface RenderableMessage {
  customType: string;
  content: string | ContentBlock[];
  display: boolean;
  details?: unknown;
}

/** How the app shows the message. */
export interface MessageRenderOptions {
  /** Whether the user asked for the full view (the terminal app toggles it). */
  expanded: boolean;
  /** Columns available (the terminal's width; 80 for plain text exports). */
  width: number;
}

/**
 * Turns a `custom_message` of one type into the lines an app shows (the terminal app's
 * transcript, the plain-text export). Return `undefined` to fall back to the default view.
 * @example
 * ```ts
 * arbor.registerMessageRenderer("todo-list", (message) =>
 *   (message.details as Todo[]).map((todo) => `${todo.done ? "[x]" : "[ ]"} ${todo.text}`));
 * ```
 */
export type MessageRenderer = (
  message: RenderableMessage,
  options: MessageRenderOptions,
) => string | string[] | undefined;

/** A renderer's output, as the app shows it. */
export interface RenderedMessage {
  lines: string[];
  extensionName: string;
}

/** What a renderer may return; checked before it reaches the app. */
export const rendererOutputSchema = z.union([z.string(), z.array(z.string())]).optional();
