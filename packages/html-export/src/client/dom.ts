export { formatTokens } from "../format-tokens.js";

/** Creates an element with an optional class and text; text is always set as text, never HTML. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className?: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Escapes text for use inside HTML markup or a double-quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

// One formatter for the page: `toLocaleString` builds a new one on every call.
let timeFormat: Intl.DateTimeFormat | undefined;

/** Formats an ISO timestamp in the reader's locale, or returns it unchanged if unparsable. */
export function formatTime(iso: unknown): string {
  if (typeof iso !== "string") return "";
  const t = Date.parse(iso);
  if (!Number.isFinite(t)) return iso;
  timeFormat ??= new Intl.DateTimeFormat(undefined, { dateStyle: "short", timeStyle: "medium" });
  return timeFormat.format(t);
}
