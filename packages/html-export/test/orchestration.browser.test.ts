/// <reference lib="dom" />
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportSessionTreeToHtml } from "../src/orchestration/load-children.js";
import { buildPageData, type PageData } from "../src/page-data.js";
import type { SessionSnapshot } from "../src/session-snapshot.js";
import {
  ARTIFACTS,
  finishWatched,
  launchChromium,
  openWatched,
  pathShown,
  SKIP_BROWSER,
  saveArtifact,
  untilStill,
  type WatchedPage,
} from "./browser.js";
import { childSession, entry, parentSession } from "./orchestration-sessions.js";

const HUGE_MESSAGES = 5000;
const PROMPT = "You are a careful reviewer.\n<script>alert(1)</script> stays text.";

function sessions(): { parent: SessionSnapshot; byId: Map<string, SessionSnapshot> } {
  const parent = parentSession("P", ["C", "../../evil", "H"]);
  // The run's system prompt is the parent's first entry.
  parent.entries.unshift(
    entry("P-sp", null, "custom", { customType: "arbor.system-prompt", data: { text: PROMPT } }),
  );
  (parent.entries[1] as { parentId: string | null }).parentId = "P-sp";
  const byId = new Map<string, SessionSnapshot>([
    // C starts a grandchild and names its own parent again (a cycle).
    ["C", childSession("C", "P", ["G", "P"])],
    ["G", childSession("G", "C")],
    ["H", childSession("H", "P", [], HUGE_MESSAGES)],
  ]);
  return { parent, byId };
}

function card(watched: WatchedPage, id: string) {
  return watched.page.locator(`main article.entry[data-id="${id}"]`);
}

describe.skipIf(SKIP_BROWSER)("orchestration entries in chromium", () => {
  let browser: Browser;
  let data: PageData;
  let url: string;

  beforeAll(async () => {
    browser = await launchChromium();
    const { parent, byId } = sessions();
    data = buildPageData(parent, undefined, { loadChild: (id) => byId.get(id) });
    const html = await exportSessionTreeToHtml(parent, { loadChild: async (id) => byId.get(id) });
    url = saveArtifact("orchestration.html", html);
  });

  afterAll(async () => {
    await browser?.close();
  });

  it("goes from the parent's child card to the embedded child, and back from its ancestry entry", async () => {
    const watched = await openWatched(browser, url);
    const childCard = card(watched, "P-c0");
    await childCard.scrollIntoViewIfNeeded();
    await untilStill(watched.page, childCard);
    const text = (await childCard.textContent()) ?? "";
    for (const part of [
      "researcher",
      "subagent",
      "main:researcher",
      "succeeded",
      "1.5k",
      "$0.0123",
    ])
      expect(text).toContain(part);
    expect(await childCard.locator("a.export-link").getAttribute("href")).toBe("./C.html");
    await watched.page.screenshot({ path: `${ARTIFACTS}orchestration-parent.png` });

    await childCard.locator("button.open-child").click();
    const start = data.orchestration.children["P-c0"]?.target as string;
    await expect
      .poll(() => watched.page.locator("main article.entry.target").getAttribute("data-id"))
      .toBe(start);
    const shown = await pathShown(watched);
    expect(shown.slice(0, 4)).toEqual(["P-sp", "P-u", "P-c0r", "P-c0"]);
    expect(shown[4]).toBe(start);
    const startText = (await card(watched, start).textContent()) ?? "";
    expect(startText).toContain("Child session C");
    expect(startText).toContain("Started by session P as researcher (subagent)");
    // The path ends at the child's own leaf (not inside the grandchild it started).
    const childLeaf = data.orchestration.children["P-c0"]?.targetLeaf as string;
    expect(shown.at(-1)).toBe(childLeaf);
    const last = card(watched, childLeaf);
    await last.scrollIntoViewIfNeeded();
    await expect.poll(() => last.textContent()).toContain("Result of C");
    await watched.page.screenshot({ path: `${ARTIFACTS}orchestration-child.png` });

    // The child's card for its parent (a cycle) links back to where the parent starts.
    const cycleId = Object.entries(data.orchestration.children).find(
      ([, c]) => c.childSessionId === "P",
    )?.[0] as string;
    const cycleCard = card(watched, cycleId);
    await cycleCard.scrollIntoViewIfNeeded();
    await untilStill(watched.page, cycleCard);
    expect(await cycleCard.textContent()).toContain("This session is already shown on this page.");

    // Back up: the ancestry entry's button shows the parent's child entry.
    const ancestry = card(watched, start);
    await ancestry.scrollIntoViewIfNeeded();
    await untilStill(watched.page, ancestry);
    await ancestry.locator("button.open-parent").click();
    await expect
      .poll(() => watched.page.locator("main article.entry.target").getAttribute("data-id"))
      .toBe("P-c0");
    await finishWatched(watched);
  });

  it("notes the missing child with a hostile id, opens the huge one, and folds the system prompt", async () => {
    const watched = await openWatched(browser, url);
    const page = watched.page;
    const missing = card(watched, "P-c1");
    await missing.scrollIntoViewIfNeeded();
    await untilStill(page, missing);
    expect(await missing.textContent()).toContain("Missing: the child session was not found.");
    expect(await missing.locator("button.open-child").count()).toBe(0);
    expect(await missing.locator("a.export-link").getAttribute("href")).toBe("./_evil.html");

    const prompt = card(watched, "P-sp");
    await prompt.scrollIntoViewIfNeeded();
    const details = prompt.locator("details.system-prompt");
    expect(await details.getAttribute("open")).toBeNull();
    expect(await details.locator("summary").textContent()).toBe(
      `System prompt · ${PROMPT.length} characters`,
    );
    await details.locator("summary").click();
    await expect.poll(() => details.locator("pre").textContent()).toBe(PROMPT);

    // Search finds the card by its agent path and the prompt by its text.
    await page.fill("input.search", "main:researcher");
    const rows = () =>
      page.$$eval(".tree-row", (list) => list.map((r) => (r as HTMLElement).dataset.id));
    // (search waits for typing to pause, so poll until the rows are the hits)
    await expect
      .poll(async () => {
        const shown = await rows();
        return shown.includes("P-c0") && !shown.includes("P-u");
      })
      .toBe(true);
    await page.fill("input.search", "careful reviewer");
    await expect
      .poll(() =>
        page.$$eval(".tree-row", (rows) => rows.map((r) => (r as HTMLElement).dataset.id)),
      )
      .toEqual(["P-sp"]);
    await page.fill("input.search", "");

    const huge = card(watched, "P-c2");
    await huge.scrollIntoViewIfNeeded();
    await untilStill(page, huge);
    await huge.locator("button.open-child").click();
    await expect.poll(async () => (await pathShown(watched)).length).toBe(8 + HUGE_MESSAGES + 3);
    const last = page.locator("main article.entry").last();
    await last.scrollIntoViewIfNeeded();
    await expect.poll(() => last.textContent()).toContain("Result of H");
    await finishWatched(watched);
  });
});
