// Child process for case 4: opens one session file with Arbor or pi, builds its context,
// and prints memory use as JSON. Run with `node --expose-gc memory-probe.mjs <arbor|pi> <file>`.

import { openSessionFile } from "@arbor/session-store";
import { SessionManager } from "@mariozechner/pi-coding-agent";

const [side, path] = process.argv.slice(2);
const gc = () => {
  globalThis.gc();
  globalThis.gc();
};

gc();
const before = process.memoryUsage();
const started = performance.now();
let session;
let context;
if (side === "arbor") {
  session = await openSessionFile(path, { readOnly: true });
  context = session.buildSessionContext();
} else {
  session = SessionManager.open(path);
  context = session.buildSessionContext();
}
const ms = performance.now() - started;
const after = process.memoryUsage();
gc();
const retained = process.memoryUsage();
const delta = (usage) => ({
  heapUsed: usage.heapUsed - before.heapUsed,
  external: usage.external - before.external,
  arrayBuffers: usage.arrayBuffers - before.arrayBuffers,
});
process.stdout.write(
  `${JSON.stringify({
    side,
    ms,
    messages: context.messages.length,
    hasSession: session !== undefined,
    after: delta(after),
    retained: delta(retained),
    maxRss: process.resourceUsage().maxRSS * 1024,
    baselineRss: before.rss,
  })}\n`,
);
