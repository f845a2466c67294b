// Import throughput over a generated Claude Code projects folder: reading (parse and
// convert every file) and importing into a FileSessionStore, against a floor that only
// reads the same lines and JSON.parses each. `node --expose-gc bench/import-throughput.mjs
// [--import-mb=500] [--runs=3]` prints a table; run.mjs runs it as the `import` case.

import { createReadStream, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { importSessions, readClaudeCodeFile } from "../dist/import/index.js";
import { FileSessionStore } from "../dist/index.js";
import { MIB } from "./bench-data.mjs";
import { claudeProjectsFolder } from "./import-data.mjs";
import { collectGarbage, formatBytes, formatMs, markdownTable, median } from "./timing.mjs";

const arg = (name, fallback) =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback);
const progress = (message) => process.stderr.write(`[bench import] ${message}\n`);

function jsonlFiles(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((e) =>
      e.isDirectory()
        ? jsonlFiles(join(dir, e.name))
        : e.name.endsWith(".jsonl")
          ? [join(dir, e.name)]
          : [],
    );
}

async function floor(files) {
  let lines = 0;
  for (const file of files) {
    for await (const line of createInterface({
      input: createReadStream(file),
      crlfDelay: Infinity,
    })) {
      if (line) JSON.parse(line);
      lines++;
    }
  }
  return { lines };
}

async function readAll(files) {
  let entries = 0;
  let lines = 0;
  for (const file of files) {
    for (const log of await readClaudeCodeFile(file)) {
      entries += log.report.entries;
      lines += log.report.lines;
    }
  }
  return { entries, lines };
}

async function importAll(dir) {
  const root = mkdtempSync(join(tmpdir(), "arbor-bench-import-"));
  try {
    const store = new FileSessionStore({ root, durability: "never" });
    const summary = await importSessions(dir, { store });
    return {
      entries: summary.sessions.reduce((n, s) => n + s.report.entries, 0),
      sessions: summary.sessions.length,
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

async function timed(fn) {
  collectGarbage();
  const started = performance.now();
  const result = await fn();
  return { ms: performance.now() - started, result };
}

/** Runs the benchmark; returns the table rows and facts for run.mjs. */
export async function measureImport({ megabytes = 500, runs = 3 } = {}) {
  progress(`making a ${megabytes} MiB Claude Code folder (once; cached in .bench-data)`);
  const { dir, bytes } = claudeProjectsFolder(megabytes * MIB);
  const files = jsonlFiles(dir);
  const cases = [
    ["floor: read lines + JSON.parse each", () => floor(files)],
    ["read + convert (readClaudeCodeFile)", () => readAll(files)],
    ["import into a FileSessionStore (importSessions)", () => importAll(dir)],
  ];
  // Rounds: each runs every case once, back to back, so a case's ratio to the floor is
  // taken within a round, while the shared machine's load is about the same.
  const times = cases.map(() => []);
  let entries = 0;
  for (let run = 0; run < runs; run++) {
    for (const [i, [name, fn]] of cases.entries()) {
      progress(`${name}: round ${run + 1}/${runs}`);
      const { ms, result } = await timed(fn);
      times[i].push(ms);
      if (result.entries) entries = result.entries;
    }
  }
  const rows = cases.map(([name], i) => {
    const ms = median(times[i]);
    const seconds = ms / 1000;
    const ratios = times[i].map((t, run) => t / times[0][run]);
    return [
      name,
      formatMs(ms),
      `${(bytes / MIB / seconds).toFixed(1)} MiB/s`,
      name.startsWith("floor") ? "—" : `${Math.round(entries / seconds).toLocaleString("en-US")}/s`,
      i === 0
        ? "1×"
        : `${median(ratios).toFixed(2)}× (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`,
      `${formatMs(Math.min(...times[i]))}–${formatMs(Math.max(...times[i]))}`,
    ];
  });
  return { rows, bytes, files: files.length, entries };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { rows, bytes, files, entries } = await measureImport({
    megabytes: arg("import-mb", 500),
    runs: arg("runs", 3),
  });
  console.log(
    `\n### Import, ${formatBytes(bytes)} Claude Code folder (${files} files, ${entries.toLocaleString("en-US")} entries; median)\n`,
  );
  console.log(
    markdownTable(
      ["case", "time", "throughput", "entries/s", "× floor (per round)", "min–max"],
      rows,
    ),
  );
}
