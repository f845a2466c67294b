// Child process for case 6: lists a session directory several times and prints the
// milliseconds of each listing as JSON.
// `node listing-probe.mjs <arbor-cold|arbor-warm|pi> <dir> <runs>`: arbor-cold deletes the
// listing index before each run; arbor-warm makes sure it exists first.

import { rmSync } from "node:fs";
import { join } from "node:path";
import { listSessions, SESSION_INDEX_FILE } from "@arbor/session-store";
import { SessionManager } from "@mariozechner/pi-coding-agent";

const [mode, dir, runsArg] = process.argv.slice(2);
const runs = Number(runsArg);
const cwd = process.env.BENCH_CWD ?? "";

const list = mode === "pi" ? () => SessionManager.list(cwd, dir) : () => listSessions(dir);
if (mode === "arbor-warm") await list();

const times = [];
let count = 0;
for (let run = 0; run < runs; run++) {
  if (mode === "arbor-cold") rmSync(join(dir, SESSION_INDEX_FILE), { force: true });
  globalThis.gc?.();
  const started = performance.now();
  const sessions = await list();
  times.push(performance.now() - started);
  count = sessions.length;
}
process.stdout.write(`${JSON.stringify({ mode, times, count })}\n`);
