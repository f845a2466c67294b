// Following a live log: grows copies of the import fixtures one line at a time, imports
// after every line, and counts how each import stored what the source gained: appended,
// rewritten (through the spare copy), or nothing to do. Not part of `pnpm test`.
//   node bench/live-growth.mjs [--max-lines=<n>]   (from packages/session-store, after a build)

import {
  appendFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { importSessions } from "../dist/import/index.js";
import { MemorySessionStore } from "../dist/index.js";
import { markdownTable } from "./timing.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const fixtures = join(here, "..", "fixtures", "import");
const maxArg = process.argv.find((a) => a.startsWith("--max-lines="));
const maxLines = maxArg ? Number(maxArg.slice("--max-lines=".length)) : 400;

function jsonlFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return jsonlFiles(path);
    return e.name.endsWith(".jsonl") ? [path] : [];
  });
}

/** Counts the store calls an import makes: a spare copy stored is a rewrite. */
class CountingStore extends MemorySessionStore {
  rewrites = 0;
  async importLog(text, options) {
    const header = JSON.parse(text.slice(0, text.indexOf("\n")));
    if (header.id.endsWith(".replacing")) this.rewrites++;
    return super.importLog(text, options);
  }
}

const scratch = mkdtempSync(join(tmpdir(), "arbor-live-growth-"));
const rows = [];
const totals = { imports: 0, appends: 0, rewrites: 0, unchanged: 0, created: 0 };
try {
  for (const file of jsonlFiles(fixtures).sort()) {
    const tool = file.includes("codex") ? "codex" : "claude-code";
    const lines = readFileSync(file, "utf8")
      .split(/(?<=\n)/)
      .slice(0, maxLines);
    const copy = join(scratch, basename(file));
    writeFileSync(copy, "");
    const store = new CountingStore();
    const counts = { imports: 0, appends: 0, rewrites: 0, unchanged: 0, created: 0 };
    for (const line of lines) {
      appendFileSync(copy, line);
      const before = store.rewrites;
      const summary = await importSessions(copy, { store, from: tool }).catch(() => undefined);
      if (!summary) continue;
      counts.imports++;
      const rewrote = store.rewrites - before;
      counts.rewrites += rewrote;
      for (const s of summary.sessions) {
        if (s.status === "created") counts.created++;
        if (s.status === "unchanged") counts.unchanged++;
      }
      const updated = summary.sessions.filter((s) => s.status === "updated").length;
      counts.appends += Math.max(0, updated - rewrote);
    }
    for (const key of Object.keys(totals)) totals[key] += counts[key];
    rows.push([
      relative(fixtures, file),
      String(lines.length),
      String(counts.imports),
      String(counts.created),
      String(counts.appends),
      String(counts.rewrites),
      String(counts.unchanged),
    ]);
  }
  rows.push([
    "all",
    "",
    String(totals.imports),
    String(totals.created),
    String(totals.appends),
    String(totals.rewrites),
    String(totals.unchanged),
  ]);
  console.log(
    markdownTable(
      ["fixture", "lines", "imports", "created", "appended", "rewritten", "unchanged"],
      rows,
    ),
  );
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
