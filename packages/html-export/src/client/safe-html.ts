import { safeHref } from "./markdown.js";

/** Elements an extension's HTML may create; anything else is unwrapped to its content. */
const ALLOWED = new Set([
  "a",
  "abbr",
  "b",
  "blockquote",
  "br",
  "caption",
  "code",
  "dd",
  "del",
  "details",
  "div",
  "dl",
  "dt",
  "em",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "hr",
  "i",
  "ins",
  "kbd",
  "li",
  "mark",
  "ol",
  "p",
  "pre",
  "q",
  "s",
  "samp",
  "small",
  "span",
  "strong",
  "sub",
  "summary",
  "sup",
  "table",
  "tbody",
  "td",
  "tfoot",
  "th",
  "thead",
  "tr",
  "u",
  "ul",
]);

/** Elements dropped with everything inside them (their text is code or chrome, not content). */
const DROPPED = new Set([
  "script",
  "style",
  "template",
  "noscript",
  "iframe",
  "frame",
  "frameset",
  "object",
  "embed",
  "textarea",
  "select",
  "option",
  "button",
  "form",
  "input",
  "title",
  "head",
  "svg",
  "math",
  "canvas",
  "video",
  "audio",
  "img",
  "picture",
  "source",
  "link",
  "meta",
  "base",
]);

/** Attributes kept, by element (`*`: any allowed element); values are set as text. */
const ATTRIBUTES: Record<string, readonly string[]> = {
  "*": ["title"],
  a: ["href"],
  ol: ["start"],
  td: ["colspan", "rowspan"],
  th: ["colspan", "rowspan"],
};

const HTML_NS = "http://www.w3.org/1999/xhtml";

/** Nesting deeper than this is flattened to text, so hostile markup cannot exhaust the stack. */
const MAX_DEPTH = 64;

/**
 * Builds a DOM fragment from untrusted HTML (an extension's renderer output) that holds only
 * a safe subset: the markup is parsed in an inert document (nothing in it runs or loads),
 * then rebuilt element by element from an allowlist, copying only allowlisted attributes.
 * Scripts, styles, event handlers, frames, forms, images and SVG never reach the page;
 * links keep only `http(s):`, `mailto:` and `#` targets and open in a new tab.
 */
export function safeHtmlFragment(html: string): DocumentFragment {
  const parsed = new DOMParser().parseFromString(html, "text/html");
  const out = document.createDocumentFragment();
  copyChildren(parsed.body, out, 0);
  return out;
}

function copyChildren(from: Node, to: Node, depth: number): void {
  for (const child of Array.from(from.childNodes)) copyNode(child, to, depth);
}

function copyNode(node: Node, to: Node, depth: number): void {
  if (node.nodeType === Node.TEXT_NODE) {
    to.appendChild(document.createTextNode(node.textContent ?? ""));
    return;
  }
  if (node.nodeType !== Node.ELEMENT_NODE) return;
  const element = node as Element;
  const tag = element.localName;
  if (DROPPED.has(tag) || element.namespaceURI !== HTML_NS) return;
  if (!ALLOWED.has(tag) || depth >= MAX_DEPTH) {
    if (depth >= MAX_DEPTH) to.appendChild(document.createTextNode(element.textContent ?? ""));
    else copyChildren(element, to, depth + 1);
    return;
  }
  const copy = document.createElement(tag);
  for (const name of [...(ATTRIBUTES["*"] ?? []), ...(ATTRIBUTES[tag] ?? [])]) {
    const value = element.getAttribute(name);
    if (value === null) continue;
    if (name === "href") {
      const href = safeHref(value);
      if (href === undefined) continue;
      copy.setAttribute("href", href);
      copy.setAttribute("target", "_blank");
      copy.setAttribute("rel", "noopener noreferrer");
    } else if (name === "title" || /^\d{1,4}$/.test(value)) {
      copy.setAttribute(name, value);
    }
  }
  copyChildren(element, copy, depth + 1);
  to.appendChild(copy);
}
