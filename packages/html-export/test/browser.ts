/// <reference lib="dom" />
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  type Browser,
  type BrowserContext,
  chromium,
  type Locator,
  type Page,
} from "playwright-core";
import { expect } from "vitest";

/** Debian's chromium; tests never download a browser. */
export const CHROMIUM_PATH = "/usr/bin/chromium";

/** Flags for a quiet, offline, throwaway headless chromium. */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Where tests write exported pages and screenshots (gitignored). */
export const ARTIFACTS = fileURLToPath(new URL("../test-artifacts/", import.meta.url));

/**
 * Browser tests skip only on a developer machine without chromium; under CI they must run
 * (CI installs chromium through `.ci/system-deps`), so a missing browser fails loudly there.
 */
export const SKIP_BROWSER = !existsSync(CHROMIUM_PATH) && !process.env.CI;

/** Launches chromium; playwright gives each launch a fresh temporary profile. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}

/** Writes an exported page into the artifacts folder and returns its file URL. */
export function saveArtifact(name: string, html: string): string {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = `${ARTIFACTS}${name}`;
  writeFileSync(path, html);
  return pathToFileURL(path).href;
}

/** A page whose every non-file request is refused and recorded, plus page errors. */
export interface WatchedPage {
  context: BrowserContext;
  page: Page;
  requests: string[];
  errors: string[];
}

/** Opens a page in a fresh context that blocks and records any request leaving the file. */
export async function openWatched(
  browser: Browser,
  url: string,
  viewport = { width: 1280, height: 860 },
): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const requests: string[] = [];
  const errors: string[] = [];
  page.on("request", (request) => {
    if (!/^(file|data):/.test(request.url())) requests.push(request.url());
  });
  page.on("pageerror", (error) => errors.push(error.message));
  await context.route("**/*", (route) => {
    const target = route.request().url();
    if (target.startsWith("file:")) return route.continue();
    requests.push(target);
    return route.abort();
  });
  await page.addInitScript(() => {
    const w = window as unknown as { __cspViolations: string[] };
    w.__cspViolations = [];
    document.addEventListener("securitypolicyviolation", (event) => {
      w.__cspViolations.push(`${event.violatedDirective} ${event.blockedURI}`);
    });
  });
  await page.goto(url);
  await page.waitForSelector("html[data-ready]");
  return { context, page, requests, errors };
}

/** Scrolls the virtualized sidebar until the row for an entry is rendered, then returns it. */
export async function findTreeRow(page: Page, id: string) {
  await page.evaluate(async (entryId) => {
    const scroller = document.querySelector<HTMLElement>(".tree-scroll");
    if (!scroller) throw new Error("no sidebar");
    const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
    scroller.scrollTop = 0;
    await frame();
    for (let guard = 0; guard < 10_000; guard++) {
      if (scroller.querySelector(`.tree-row[data-id="${entryId}"]`)) return;
      if (scroller.scrollTop + scroller.clientHeight >= scroller.scrollHeight) break;
      scroller.scrollTop += scroller.clientHeight / 2;
      await frame();
    }
    throw new Error(`row ${entryId} is not in the sidebar`);
  }, id);
  const row = page.locator(`.tree-row[data-id="${id}"]`);
  await row.scrollIntoViewIfNeeded();
  return row;
}

/**
 * Resolves once `target` has kept its place for 150 ms. Cards above it fill in as they near
 * the viewport and can shift it for a moment; a click should land where a reader aims.
 */
export async function untilStill(page: Page, target: Locator): Promise<void> {
  let before = (await target.boundingBox())?.y;
  for (let tries = 0; tries < 60; tries++) {
    await page.waitForTimeout(150);
    const now = (await target.boundingBox())?.y;
    if (now === before) return;
    before = now;
  }
  throw new Error("the element kept moving for 9 s");
}

/** The ids of the entry cards the page shows, top to bottom. */
export async function pathShown(watched: WatchedPage): Promise<string[]> {
  return watched.page.$$eval("main article.entry", (cards) =>
    cards.map((c) => (c as HTMLElement).dataset.id ?? ""),
  );
}

/**
 * Checks what every page must hold to (no network request, no page error, no CSP
 * violation), then closes its context.
 */
export async function finishWatched(watched: WatchedPage): Promise<void> {
  expect(watched.requests).toEqual([]);
  expect(watched.errors).toEqual([]);
  expect(
    await watched.page.evaluate(
      () => (window as unknown as { __cspViolations: string[] }).__cspViolations,
    ),
  ).toEqual([]);
  await watched.context.close();
}
