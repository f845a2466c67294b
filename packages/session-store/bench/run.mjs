// Arbor session-store vs pi's SessionManager (the peer), same run, same data.
// `pnpm bench` builds dist/ and runs this; `--only=fixtures,10k,128mb,memory,appends,listing,import`
// picks cases (`--import-mb=<n>` sizes the import case's folder, default 500). Data is generated once into .bench-data/ (see bench-data.mjs).

import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { measureAppends } from "./appends.mjs";
import {
  BENCH_CWD,
  COMPACTION_EVERY_BYTES,
  directoryBytes,
  findPiFixtures,
  largeCompactedSession,
  listingDirectory,
  tenThousandMessageSession,
} from "./bench-data.mjs";
import { measureImport } from "./import-throughput.mjs";
import { measureOpenContext } from "./open-context.mjs";
import { formatBytes, formatMs, formatRatio, markdownTable, median } from "./timing.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const CASES = ["fixtures", "10k", "128mb", "memory", "appends", "listing", "import"];
const onlyArg = process.argv.find((arg) => arg.startsWith("--only="));
const selected = new Set(onlyArg ? onlyArg.slice("--only=".length).split(",") : CASES);

const scratch = mkdtempSync(join(tmpdir(), "arbor-bench-"));
const timingRows = [];
const summaryRows = [];
const notes = [];
const progress = (message) => process.stderr.write(`[bench] ${message}\n`);

function target(name, wanted, measured, pass) {
  summaryRows.push([name, wanted, measured, pass ? "pass" : "FAIL"]);
}

/** Copies files into the scratch folder, since pi may rewrite a file it opens. */
function piCopies(files) {
  const dir = mkdtempSync(join(scratch, "pi-copies-"));
  return files.map((file) => {
    const copy = join(dir, basename(file));
    copyFileSync(file, copy);
    return copy;
  });
}

async function openCase(name, files, runs) {
  progress(`${name}: ${runs} runs per side`);
  const result = await measureOpenContext({ arborFiles: files, piFiles: piCopies(files), runs });
  for (const mismatch of result.mismatches) notes.push(`context length differs: ${mismatch}`);
  const ratio = result.piMs / result.arborMs;
  const paired = result.pairedRatios;
  timingRows.push([
    name,
    formatMs(result.arborMs),
    formatMs(result.piMs),
    formatRatio(ratio),
    `${formatRatio(Math.min(...paired))}–${formatRatio(Math.max(...paired))}`,
    String(runs),
  ]);
  return { ...result, ratio };
}

function child(script, args, options = {}) {
  const out = execFileSync(
    process.execPath,
    [...(options.nodeArgs ?? []), join(here, script), ...args],
    {
      encoding: "utf8",
      maxBuffer: 1 << 20,
      env: { ...process.env, BENCH_CWD },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  return JSON.parse(out.trim().split("\n").at(-1));
}

if (selected.has("fixtures")) {
  const fixtures = findPiFixtures();
  const bytes = fixtures.reduce((sum, file) => sum + statSync(file).size, 0);
  await openCase(
    `open + context, ${fixtures.length} pi fixtures (sum, ${formatBytes(bytes)})`,
    fixtures,
    15,
  );
}

if (selected.has("10k")) {
  const file = tenThousandMessageSession();
  const result = await openCase(
    `open + context, 10,000 messages (${formatBytes(statSync(file).size)})`,
    [file],
    11,
  );
  target(
    "10,000 messages open + context: Arbor ≥ 2× faster than pi",
    "≥ 2×",
    formatRatio(result.ratio),
    result.ratio >= 2,
  );
}

const largeFile =
  selected.has("128mb") || selected.has("memory") ? largeCompactedSession() : undefined;
const largeBytes = largeFile ? statSync(largeFile).size : 0;
if (largeFile) {
  notes.push(
    `The ${formatBytes(largeBytes)} session holds tool results of 20–200 KB and a compaction after about every ${COMPACTION_EVERY_BYTES / 1024} KB (~150k tokens) of content, firstKeptEntryId pointing at the last turn's user message, as a long compacting agent session would.`,
  );
}

if (selected.has("128mb")) {
  const result = await openCase(
    `open + context, large compacted session (${formatBytes(largeBytes)})`,
    [largeFile],
    5,
  );
  target(
    "128 MiB open + context: Arbor ≥ 5× faster than pi",
    "≥ 5×",
    formatRatio(result.ratio),
    result.ratio >= 5,
  );
  target(
    "128 MiB open + context: Arbor < 1 s",
    "< 1 s",
    formatMs(result.arborMs),
    result.arborMs < 1000,
  );
}

if (selected.has("memory")) {
  const piFile = piCopies([largeFile])[0];
  const probes = { arbor: [], pi: [] };
  for (let run = 0; run < 3; run++) {
    for (const side of ["arbor", "pi"]) {
      progress(`memory: ${side} run ${run + 1}/3`);
      probes[side].push(
        child("memory-probe.mjs", [side, side === "pi" ? piFile : largeFile], {
          nodeArgs: ["--expose-gc"],
        }),
      );
    }
  }
  const rows = [];
  const stats = {};
  for (const [side, runs] of Object.entries(probes)) {
    const pick = (f) => median(runs.map(f));
    const heap = pick((p) => p.after.heapUsed);
    const all = pick((p) => p.after.heapUsed + p.after.external);
    const retained = pick((p) => p.retained.heapUsed + p.retained.external);
    const rss = pick((p) => p.maxRss - p.baselineRss);
    const x = (bytes) => `${formatBytes(bytes)} (${(bytes / largeBytes).toFixed(2)}×)`;
    stats[side] = { heap };
    rows.push([side === "arbor" ? "Arbor" : "pi", x(heap), x(all), x(retained), x(rss)]);
  }
  console.log(
    `\n### Memory, opening the ${formatBytes(largeBytes)} session (median of 3 child processes)\n`,
  );
  console.log(
    markdownTable(
      [
        "side",
        "heapUsed after open+context",
        "heapUsed + external",
        "retained after GC (heap + external)",
        "peak RSS growth",
      ],
      rows,
    ),
  );
  console.log(
    "\nGrowth over a baseline taken after imports and GC. `external` already includes `arrayBuffers` (Node counts them in it), so heapUsed + external is heap + external + array buffers without counting the file buffer twice.",
  );
  const ratio = stats.arbor.heap / largeBytes;
  target(
    "128 MiB open: Arbor heap < 1.5× file size",
    "< 1.50×",
    `${ratio.toFixed(2)}×`,
    ratio < 1.5,
  );
}

if (selected.has("appends")) {
  const count = 2000;
  progress(`appends: ${count} per run, 5 runs per mode`);
  const rows = await measureAppends({ root: scratch, count, runs: 5 });
  const fmt = (n) => `${Math.round(n).toLocaleString("en-US")}/s`;
  console.log(`\n### Appends of ${count} small messages (median of 5)\n`);
  console.log(
    markdownTable(
      ["side", "durability", "awaited one at a time", "fired, then awaited together"],
      rows.map((r) => [r.side, r.mode, fmt(r.awaitedPerSec), fmt(r.firedPerSec)]),
    ),
  );
  const pi = rows.find((r) => r.side === "pi");
  const never = rows.find((r) => r.side === "Arbor" && r.mode === "never");
  target(
    "unsynced (`never`) appends, awaited, ≥ pi",
    `≥ ${fmt(pi.awaitedPerSec)}`,
    fmt(never.awaitedPerSec),
    never.awaitedPerSec >= pi.awaitedPerSec,
  );
  target(
    "unsynced (`never`) appends, fired together, ≥ pi",
    `≥ ${fmt(pi.awaitedPerSec)}`,
    fmt(never.firedPerSec),
    never.firedPerSec >= pi.awaitedPerSec,
  );
}

if (selected.has("listing")) {
  const dir = listingDirectory();
  const bytes = directoryBytes(dir);
  progress("listing: Arbor cold (3 runs, index deleted before each)");
  const cold = child("listing-probe.mjs", ["arbor-cold", dir, "3"], { nodeArgs: ["--expose-gc"] });
  progress("listing: Arbor warm (7 runs)");
  const warm = child("listing-probe.mjs", ["arbor-warm", dir, "7"], { nodeArgs: ["--expose-gc"] });
  progress("listing: pi (3 runs; it reads and parses every file, ~10 s a run)");
  const pi = child("listing-probe.mjs", ["pi", dir, "3"], { nodeArgs: ["--expose-gc"] });
  if (cold.count !== pi.count || warm.count !== pi.count) {
    notes.push(
      `listing counts differ: Arbor cold ${cold.count}, warm ${warm.count}, pi ${pi.count}`,
    );
  }
  const piMs = median(pi.times);
  const name = `listSessions, ${pi.count} sessions (${formatBytes(bytes)})`;
  timingRows.push([
    `${name}, cold (no index)`,
    formatMs(median(cold.times)),
    formatMs(piMs),
    formatRatio(piMs / median(cold.times)),
    "—",
    "3",
  ]);
  const warmMs = median(warm.times);
  timingRows.push([
    `${name}, warm (index present)`,
    formatMs(warmMs),
    formatMs(piMs),
    formatRatio(piMs / warmMs),
    "—",
    "7 / 3",
  ]);
  target("listing 1,000 sessions warm < 200 ms", "< 200 ms", formatMs(warmMs), warmMs < 200);
  target(
    "listing warm ≥ 20× faster than pi",
    "≥ 20×",
    formatRatio(piMs / warmMs),
    piMs / warmMs >= 20,
  );
}

if (selected.has("import")) {
  const megabytes = Number(
    process.argv.find((a) => a.startsWith("--import-mb="))?.split("=")[1] ?? 500,
  );
  const result = await measureImport({ megabytes, runs: 3 });
  console.log(
    `\n### Import, ${formatBytes(result.bytes)} generated Claude Code folder (${result.files} files, ${result.entries.toLocaleString("en-US")} entries; median of 3 rounds, each running the three cases back to back; × floor: time / the floor's time in the same round, median and range; the floor only reads the lines and JSON.parses each)\n`,
  );
  console.log(
    markdownTable(
      ["case", "time", "throughput", "entries/s", "× floor (per round)", "min–max"],
      result.rows,
    ),
  );
}

if (timingRows.length > 0) {
  console.log(
    "\n### Time (median; ratio = pi / Arbor, above 1× means Arbor is faster; paired ratios: pi / Arbor of each round, whose two runs were back to back)\n",
  );
  console.log(
    markdownTable(
      ["case", "Arbor", "pi 0.73.1", "ratio", "paired ratios (min–max)", "runs"],
      timingRows,
    ),
  );
}
if (summaryRows.length > 0) {
  console.log("\n### Targets\n");
  console.log(markdownTable(["target", "wanted", "measured", "result"], summaryRows));
}
if (notes.length > 0) console.log(`\n${notes.map((note) => `- ${note}`).join("\n")}`);
rmSync(scratch, { recursive: true, force: true });
