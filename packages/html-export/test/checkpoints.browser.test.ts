/// <reference lib="dom" />
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportSessionToHtml } from "../src/export-html.js";
import type { SessionSnapshot, SessionSnapshotEntry } from "../src/session-snapshot.js";
import {
  finishWatched,
  launchChromium,
  openWatched,
  pathShown,
  SKIP_BROWSER,
  saveArtifact,
} from "./browser.js";

const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
const sha = (digit: string) => digit.repeat(40);

function checkpoint(id: string, parentId: string, data: Record<string, unknown>) {
  return {
    type: "custom",
    id,
    parentId,
    timestamp: t(Number(id.replace(/\D/g, "")) || 1),
    customType: "arbor.checkpoint",
    data,
  } as SessionSnapshotEntry;
}

const snapshot: SessionSnapshot = {
  header: { id: "checkpoints", timestamp: t(0) },
  leafId: "c5",
  entries: [
    {
      type: "message",
      id: "u1",
      parentId: null,
      timestamp: t(1),
      message: { role: "user", content: "change the files" },
    } as SessionSnapshotEntry,
    checkpoint("c2", "u1", { snapshotId: sha("a"), changed: [], reason: "before_tool" }),
    checkpoint("c3", "c2", {
      snapshotId: sha("b"),
      changed: ["src/app.ts", "<img src=x onerror=window.__pwned=1>.md"],
      reason: "after_tool",
      toolCallId: "call-1",
      skipped: [{ path: "big.bin", reason: "too_large", bytes: 20_000_000 }],
    }),
    checkpoint("c4", "c3", {
      snapshotId: sha("c"),
      changed: Array.from({ length: 250 }, (_, n) => `gen/file-${n}.txt`),
      changedCount: 1200,
      reason: "after_tool",
    }),
    checkpoint("c5", "c4", { snapshotId: "not a sha", changed: "nope", reason: 7 }),
  ],
};

describe.skipIf(SKIP_BROWSER)("workspace checkpoints in the HTML export, in chromium", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("shows the files each checkpoint changed on the default path, literally, with counts", async () => {
    const html = exportSessionToHtml(snapshot);
    const watched = await openWatched(browser, saveArtifact("checkpoints.html", html));
    const { page } = watched;
    // Checkpoints are part of the default view, not settings hidden behind the All filter.
    expect(await pathShown(watched)).toEqual(["u1", "c2", "c3", "c4", "c5"]);
    const files = (id: string) =>
      page.locator(`article.entry[data-id="${id}"] .checkpoint-files li`).allTextContents();
    expect(await files("c3")).toEqual(["src/app.ts", "<img src=x onerror=window.__pwned=1>.md"]);
    const c3 = await page.locator('article.entry[data-id="c3"]').textContent();
    expect(c3).toContain("Files · after a tool");
    expect(c3).toContain("Not kept (too large or unreadable): big.bin");
    expect(await page.locator('article.entry[data-id="c2"]').textContent()).toContain(
      "No file changed",
    );
    expect(await files("c4")).toHaveLength(200);
    expect(await page.locator('article.entry[data-id="c4"]').textContent()).toContain(
      "… and 1000 more",
    );
    // A malformed entry still shows, as a checkpoint without files.
    expect(await page.locator('article.entry[data-id="c5"]').textContent()).toContain("Files");
    expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBe(
      undefined,
    );
    await finishWatched(watched);
  }, 60_000);
});
