import { formatTokens } from "./format-tokens.js";
import type { PageData } from "./page-data.js";

/** Escapes text for HTML content and double-quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/**
 * The page header as static HTML: title, models, token and cost totals, counts, start
 * time and directory. Written into the document ahead of the session data, so the
 * browser paints it while it is still reading a large session.
 */
export function renderPageHeader(data: PageData): string {
  const facts: string[] = [];
  const add = (name: string, value: string) => {
    if (value) facts.push(`<div><dt>${escapeHtml(name)}</dt><dd>${value}</dd></div>`);
  };
  const t = data.totals;
  const branches = data.children.reduce((n, kids) => n + (kids.length === 0 ? 1 : 0), 0);
  add("Models", escapeHtml(data.models.join(", ") || "none"));
  add(
    "Tokens",
    `${formatTokens(t.total)} (↑${formatTokens(t.input)} ↓${formatTokens(t.output)} cache ${formatTokens(t.cacheRead)}/${formatTokens(t.cacheWrite)})`,
  );
  add("Cost", `$${t.cost.toFixed(4)}`);
  add("Entries", `${data.entries.length} · ${branches} branch${branches === 1 ? "" : "es"}`);
  const started = typeof data.header.timestamp === "string" ? data.header.timestamp : "";
  // The page rewrites this in the reader's locale and time zone.
  if (started)
    add("Started", `<time datetime="${escapeHtml(started)}">${escapeHtml(started)}</time>`);
  if (typeof data.header.cwd === "string") add("Directory", escapeHtml(data.header.cwd));
  return `<header class="top"><div class="title-row"><button type="button" class="sidebar-toggle" aria-label="Show the session tree">☰ Tree</button><h1 class="title">${escapeHtml(data.title)}</h1></div><dl class="facts">${facts.join("")}</dl></header>`;
}
