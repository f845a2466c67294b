import type { ContentBlock } from "@arbor/session-store";
import { z } from "zod";

/** A `custom_message` as a renderer receives it (a copy: changing it changes nothing). */
export interface RenderableMessage {
  customType: string;
  content: string | ContentBlock[];
  display: boolean;
  details?: unknown;
}

/**
 * Where the message is shown: the terminal app's transcript (`terminal`, the default) or
 * the HTML export (`html`), where a renderer may also return `{ html }`.
 */
export type MessageRenderTarget = "terminal" | "html";

/** How the app shows the message. */
export interface MessageRenderOptions {
  /** Whether the user asked for the full view (the terminal app toggles it). */
  expanded: boolean;
  /** Columns available (the terminal's width; 80 for plain text exports). */
  width: number;
  /** Where the message is shown; `terminal` when the app does not say. */
  target?: MessageRenderTarget;
}

/**
 * Markup for the HTML export (target `html` only). The page keeps a safe subset of it
 * (text formatting, lists, tables, code, `http(s)`/`mailto` links) and drops the rest:
 * scripts, styles, event handlers, forms, frames, images and other elements are never
 * created.
 */
export interface RenderedHtml {
  html: string;
}

/**
 * Turns a `custom_message` of one type into the lines an app shows (the terminal app's
 * transcript, the plain-text export), or, when `options.target` is `html`, lines or
 * `{ html }` for the HTML export. Return `undefined` to fall back to the default view.
 * @example
 * ```ts
 * arbor.registerMessageRenderer("todo-list", (message) =>
 *   (message.details as Todo[]).map((todo) => `${todo.done ? "[x]" : "[ ]"} ${todo.text}`));
 * ```
 */
export type MessageRenderer = (
  message: RenderableMessage,
  options: MessageRenderOptions,
) => string | string[] | RenderedHtml | undefined;

/** A renderer's output, as the app shows it. */
export interface RenderedMessage {
  /** The text lines (empty when the renderer gave `html`). */
  lines: string[];
  /** Markup the renderer gave for the `html` target; the app sanitizes it before showing it. */
  html?: string;
  extensionName: string;
}

/** A stored `custom_message` as an export hands it over (its content not checked yet). */
export interface ExportableMessage {
  customType: string;
  content: unknown;
  display: boolean;
  details?: unknown;
}

/** A message rendered for the HTML export: markup or text, and the extension that made it. */
export type ExportRendering = { html: string; by: string } | { text: string; by: string };

/** What a renderer may return for the terminal; checked before it reaches the app. */
export const rendererOutputSchema = z.union([z.string(), z.array(z.string())]).optional();

/** What a renderer may return for the HTML export: text, or `{ html }`. */
export const htmlRendererOutputSchema = z
  .union([z.string(), z.array(z.string()), z.strictObject({ html: z.string() })])
  .optional();
