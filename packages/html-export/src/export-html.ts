import { writeFile } from "node:fs/promises";
import { basename } from "node:path";
import { loadClientAsset } from "./client-asset.js";
import type { RenderCustomMessage } from "./custom-message-renderer.js";
import { embedJson } from "./embed-json.js";
import type { WithChildrenOptions } from "./orchestration/embed-children.js";
import { buildPageData } from "./page-data.js";
import { escapeHtml, renderPageHeader } from "./page-header.js";
import { readSessionSnapshot } from "./read-session-file.js";
import type { SessionSnapshot } from "./session-snapshot.js";

/** Options for {@link exportSessionToHtml}. */
export interface ExportHtmlOptions {
  /** Overrides the page title (default: session name, else the first prompt). */
  title?: string;
  /** Clock seam for the "exported at" stamp. */
  now?: () => Date;
  /**
   * Embeds each child session (from `arbor.orchestration.child` entries) in the page,
   * recursively; without it, child-session entries link to the children's export files.
   */
  withChildren?: WithChildrenOptions;
  /**
   * Shows `custom_message` entries as text or HTML (an app passes its extensions'
   * `registerMessageRenderer` renderers); HTML is cut to a safe subset in the page.
   */
  renderCustomMessage?: RenderCustomMessage;
}

// The bundled script holds `<!--`, `<script` and `</script` only inside string and regex
// literals (highlight.js's HTML grammar, marked's rules); left as they are, they could end
// the script element or switch the HTML parser into its "double escaped" state. `\x3C`
// means the same `<` inside those literals.
function inlineScript(code: string): string {
  return code.replace(/<(!--|\/?script)/gi, "\\x3C$1");
}

function inlineStyle(code: string): string {
  return code.replace(/<\/(style)/gi, "<\\/$1");
}

/**
 * Renders a session as one self-contained HTML page: the page script, styles and session
 * data are inline, and the page makes no network request.
 *
 * @param snapshot - the session's header, entries (file order) and leaf.
 * @returns the HTML document as a string.
 * @example
 * ```ts
 * const html = exportSessionToHtml({ header, entries, leafId });
 * await writeFile("session.html", html);
 * ```
 */
export function exportSessionToHtml(
  snapshot: SessionSnapshot,
  options: ExportHtmlOptions = {},
): string {
  const data = buildPageData(
    options.title === undefined ? snapshot : { ...snapshot, title: options.title },
    options.now,
    options.withChildren,
    options.renderCustomMessage,
  );
  const asset = loadClientAsset();
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<meta name="color-scheme" content="light dark">
<meta name="generator" content="@arbor/html-export">
<title>${escapeHtml(data.title)}</title>
<style>${inlineStyle(asset.style)}</style>
</head>
<body>
<div id="app"><div class="layout">${renderPageHeader(data)}<noscript>This page needs JavaScript to show the session.</noscript></div></div>
<script type="application/json" id="arbor-session">${embedJson(data)}</script>
<script>${inlineScript(asset.script)}</script>
</body>
</html>
`;
}

/**
 * Reads a v3 session JSONL file and writes its HTML export.
 *
 * @param path - the session file.
 * @param outPath - where to write; defaults to the file's name with `.html` in the current directory.
 * @returns the path written.
 * @example
 * ```ts
 * const out = await exportFileToHtml("sessions/2025-09-04.jsonl", "review.html");
 * ```
 */
export async function exportFileToHtml(path: string, outPath?: string): Promise<string> {
  const snapshot = await readSessionSnapshot(path);
  const target = outPath ?? `${basename(path).replace(/\.jsonl$/i, "")}.html`;
  await writeFile(target, exportSessionToHtml(snapshot), "utf8");
  return target;
}
