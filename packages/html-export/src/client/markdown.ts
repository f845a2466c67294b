import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";
import { Marked, type Tokens } from "marked";
import { escapeHtml } from "./dom.js";

const languages = {
  bash,
  css,
  diff,
  go,
  javascript,
  json,
  python,
  rust,
  sql,
  typescript,
  xml,
  yaml,
};
for (const [name, language] of Object.entries(languages)) hljs.registerLanguage(name, language);
hljs.registerAliases(["sh", "shell", "zsh", "console"], { languageName: "bash" });
hljs.registerAliases(["js", "jsx", "mjs"], { languageName: "javascript" });
hljs.registerAliases(["ts", "tsx"], { languageName: "typescript" });
hljs.registerAliases(["html", "svg"], { languageName: "xml" });
hljs.registerAliases(["py"], { languageName: "python" });
hljs.registerAliases(["yml"], { languageName: "yaml" });

/** Highlights code in a known language; unknown languages are escaped as plain text. */
export function highlight(code: string, language?: string): string {
  const lang = language?.trim().split(/\s+/)[0]?.toLowerCase();
  // Very large blocks are shown plain: highlighting them would stall the page.
  if (lang && code.length < 100_000 && hljs.getLanguage(lang)) {
    return hljs.highlight(code, { language: lang, ignoreIllegals: true }).value;
  }
  return escapeHtml(code);
}

// Controls and invisible characters browsers strip before reading a URL's scheme.
// biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
const URL_NOISE = /[\u0000-\u0020\u007f-\u009f\u200b-\u200f\u2028\u2029\ufeff]/g;

/** Returns the link target if it is safe to follow from an offline page, else undefined. */
export function safeHref(href: string): string | undefined {
  const bare = href.replace(URL_NOISE, "");
  if (bare.startsWith("#")) return bare;
  return /^(https?:|mailto:)/i.test(bare) ? bare : undefined;
}

const DATA_IMAGE = /^data:image\/(png|jpe?g|gif|webp);base64,[a-z0-9+/=]+$/i;

const marked = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  renderer: {
    // Raw HTML in a message is text the model or user wrote, not markup for this page.
    html(token: Tokens.HTML | Tokens.Tag) {
      return escapeHtml(token.text);
    },
    link(token: Tokens.Link) {
      const text = this.parser.parseInline(token.tokens);
      const href = safeHref(token.href);
      if (!href) return text;
      const title = token.title ? ` title="${escapeHtml(token.title)}"` : "";
      return `<a href="${escapeHtml(href)}"${title} target="_blank" rel="noopener noreferrer">${text}</a>`;
    },
    // Remote images would be network requests; only inline data images are shown.
    image(token: Tokens.Image) {
      const href = token.href.replace(URL_NOISE, "");
      if (DATA_IMAGE.test(href)) {
        return `<img src="${escapeHtml(href)}" alt="${escapeHtml(token.text)}">`;
      }
      return `<span class="remote-image">[image: ${escapeHtml(token.text || href)}]</span>`;
    },
    code(token: Tokens.Code) {
      const lang = token.lang?.trim().split(/\s+/)[0] ?? "";
      const cls = lang ? ` class="language-${escapeHtml(lang)}"` : "";
      return `<pre class="code"><code${cls}>${highlight(token.text, lang)}</code></pre>`;
    },
  },
});

/** Renders markdown to HTML with raw HTML escaped and unsafe links and images dropped. */
export function renderMarkdown(text: string): string {
  return marked.parse(text) as string;
}
