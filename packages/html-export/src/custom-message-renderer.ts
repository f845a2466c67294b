import type { SessionSnapshotEntry } from "./session-snapshot.js";

/** A `custom_message` entry as a renderer receives it (a copy). */
export interface CustomMessageToRender {
  /** The entry's id. */
  entryId: string;
  customType: string;
  content: unknown;
  display: boolean;
  details?: unknown;
}

/**
 * How the page shows a `custom_message`: as plain text (shown literally, newlines kept), or
 * as HTML of which the page keeps a safe subset (see the README's "Safety").
 */
export type RenderedCustomMessage = { text: string; by?: string } | { html: string; by?: string };

/**
 * Renders a `custom_message` for the page, or `undefined` for the default view (the
 * message's content and details). `by` names who rendered it (an extension), shown beside
 * it. Apps wire extensions' `registerMessageRenderer` renderers here.
 */
export type RenderCustomMessage = (
  message: CustomMessageToRender,
) => RenderedCustomMessage | undefined;

/** The most characters a rendered message may have; a larger one falls back to the default view. */
export const MAX_RENDERED_CHARS = 256 * 1024;

/**
 * Renders every shown `custom_message` of the entries with `render`. Messages sent with
 * `display: false` are never rendered (the page keeps them as hidden context); a renderer
 * that throws or returns something else than `{ text }` or `{ html }` (strings of at most
 * {@link MAX_RENDERED_CHARS}) leaves the message to the default view, and `onError` hears why.
 * @returns the rendered messages by entry id
 */
export function renderCustomMessages(
  entries: readonly SessionSnapshotEntry[],
  render: RenderCustomMessage,
  onError: (entryId: string, reason: string) => void = () => undefined,
): Record<string, RenderedCustomMessage> {
  const rendered: Record<string, RenderedCustomMessage> = {};
  for (const entry of entries) {
    if (entry.type !== "custom_message" || entry.display === false) continue;
    if (typeof entry.customType !== "string") continue;
    let output: unknown;
    try {
      output = render(
        structuredClone({
          entryId: entry.id,
          customType: entry.customType,
          content: entry.content,
          display: entry.display !== false,
          ...(entry.details !== undefined ? { details: entry.details } : {}),
        }),
      );
    } catch (error) {
      onError(entry.id, `the renderer threw: ${(error as Error)?.message ?? String(error)}`);
      continue;
    }
    if (output === undefined) continue;
    const checked = checkRendered(output);
    if (typeof checked === "string") onError(entry.id, checked);
    else rendered[entry.id] = checked;
  }
  return rendered;
}

function checkRendered(output: unknown): RenderedCustomMessage | string {
  if (typeof output !== "object" || output === null) return "not { text } or { html }";
  const { text, html, by, ...rest } = output as Record<string, unknown>;
  if (Object.keys(rest).length > 0) return `unknown keys: ${Object.keys(rest).join(", ")}`;
  if (by !== undefined && typeof by !== "string") return "by is not a string";
  const author = typeof by === "string" ? { by: by.slice(0, 200) } : {};
  if (typeof text === "string" && html === undefined) {
    if (text.length > MAX_RENDERED_CHARS) return `longer than ${MAX_RENDERED_CHARS} characters`;
    return { text, ...author };
  }
  if (typeof html === "string" && text === undefined) {
    if (html.length > MAX_RENDERED_CHARS) return `longer than ${MAX_RENDERED_CHARS} characters`;
    return { html, ...author };
  }
  return "not { text } or { html }";
}
