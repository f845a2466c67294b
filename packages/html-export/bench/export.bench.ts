/**
 * Export benchmark: Arbor's exporter against pi-coding-agent 0.73.1's, side by side on the
 * same generated sessions. Reports export time (file in, HTML out), file size and first
 * contentful paint in headless chromium, as medians.
 *
 * Run with `pnpm --filter @arbor/html-export bench` (after a build).
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Browser } from "playwright-core";
import { exportFileToHtml } from "../src/export-html.js";
import { CHROMIUM_PATH, launchChromium } from "../test/browser.js";
import { generateSession, toJsonl } from "../test/generate-session.js";

const SIZES = [1_000, 10_000];
const RUNS = 5;
const DATA = fileURLToPath(new URL("../.bench-data/", import.meta.url));

type ExportFromFile = (input: string, options: { outputPath: string }) => Promise<string>;

async function loadPiExport(): Promise<ExportFromFile> {
  const main = import.meta.resolve("@mariozechner/pi-coding-agent");
  const module = (await import(new URL("./core/export-html/index.js", main).href)) as {
    exportFromFile: ExportFromFile;
  };
  return module.exportFromFile;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

async function timeExport(run: () => Promise<unknown>): Promise<number> {
  await run(); // warm-up: module and template loading
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  return median(times);
}

const FCP_SCRIPT = `new Promise((resolve) => {
  const read = () => performance.getEntriesByName("first-contentful-paint")[0]?.startTime;
  if (read() !== undefined) return resolve(read());
  new PerformanceObserver(() => read() !== undefined && resolve(read())).observe({ type: "paint", buffered: true });
  setTimeout(() => resolve(Number.NaN), 10000);
})`;

/**
 * First contentful paint and DOMContentLoaded end, medians. The second is when the page's
 * inline scripts have run, i.e. when the page is usable; pi paints its shell before
 * its scripts run, so its first paint alone would flatter it.
 */
async function firstPaint(
  browser: Browser,
  file: string,
): Promise<{ paint: number; ready: number }> {
  const times: number[] = [];
  const ready: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    await context.route("**/*", (route) =>
      route.request().url().startsWith("file:") ? route.continue() : route.abort(),
    );
    await page.goto(pathToFileURL(file).href, { waitUntil: "load" });
    // A string, not a function: tsx rewrites functions with helpers the page lacks.
    const fcp = (await page.evaluate(FCP_SCRIPT)) as number;
    times.push(fcp);
    ready.push(
      (await page.evaluate(
        `performance.getEntriesByType("navigation")[0].domContentLoadedEventEnd`,
      )) as number,
    );
    await context.close();
  }
  return { paint: median(times), ready: median(ready) };
}

interface Row {
  entries: number;
  tool: string;
  exportMs: number;
  sizeKb: number;
  paintMs: number;
  readyMs: number;
}

async function main(): Promise<void> {
  mkdirSync(DATA, { recursive: true });
  const piExport = await loadPiExport();
  const browser = existsSync(CHROMIUM_PATH) ? await launchChromium() : undefined;
  if (!browser) console.warn(`${CHROMIUM_PATH} is missing: first-paint times are skipped.`);
  const rows: Row[] = [];
  try {
    for (const size of SIZES) {
      const input = `${DATA}session-${size}.jsonl`;
      writeFileSync(input, toJsonl(generateSession({ entries: size })));
      const inputKb = statSync(input).size / 1024;
      console.log(`${size} entries: session file ${inputKb.toFixed(0)} KB`);
      const outputs = {
        arbor: `${DATA}arbor-${size}.html`,
        pi: `${DATA}pi-${size}.html`,
      };
      const exports = {
        arbor: () => exportFileToHtml(input, outputs.arbor),
        pi: () => piExport(input, { outputPath: outputs.pi }),
      };
      for (const tool of ["arbor", "pi"] as const) {
        const exportMs = await timeExport(exports[tool]);
        const sizeKb = readFileSync(outputs[tool]).byteLength / 1024;
        const paint = browser
          ? await firstPaint(browser, outputs[tool])
          : { paint: Number.NaN, ready: Number.NaN };
        rows.push({
          entries: size,
          tool: tool === "arbor" ? "Arbor" : "pi 0.73.1",
          exportMs,
          sizeKb,
          paintMs: paint.paint,
          readyMs: paint.ready,
        });
      }
    }
  } finally {
    await browser?.close();
  }
  printTable(rows);
}

function printTable(rows: Row[]): void {
  const lines = [
    `| entries | exporter | export ms (median of ${RUNS}) | file KB | first paint ms | scripts done (DOMContentLoaded) ms |`,
    "|---:|---|---:|---:|---:|---:|",
  ];
  for (const row of rows) {
    lines.push(
      `| ${row.entries} | ${row.tool} | ${row.exportMs.toFixed(1)} | ${row.sizeKb.toFixed(0)} | ${row.paintMs.toFixed(0)} | ${row.readyMs.toFixed(0)} |`,
    );
  }
  for (const size of SIZES) {
    const arbor = rows.find((r) => r.entries === size && r.tool === "Arbor");
    const pi = rows.find((r) => r.entries === size && r.tool !== "Arbor");
    if (!arbor || !pi) continue;
    lines.push(
      `| ${size} | Arbor ÷ pi | ${(arbor.exportMs / pi.exportMs).toFixed(2)}× | ${(arbor.sizeKb / pi.sizeKb).toFixed(2)}× | ${(arbor.paintMs / pi.paintMs).toFixed(2)}× | ${(arbor.readyMs / pi.readyMs).toFixed(2)}× |`,
    );
  }
  console.log(`\n${lines.join("\n")}`);
  const big = rows.find((r) => r.entries === 10_000 && r.tool === "Arbor");
  if (big) {
    console.log(
      `\nTargets at 10,000 entries: export < 1000 ms (${big.exportMs.toFixed(0)} ms, ${big.exportMs < 1000 ? "met" : "MISSED"}), first paint < 1500 ms (${big.paintMs.toFixed(0)} ms, ${big.paintMs < 1500 ? "met" : "MISSED"}).`,
    );
  }
}

await main();
