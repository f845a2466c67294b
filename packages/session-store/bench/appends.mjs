// Case 5: appends per second. Arbor per durability mode, awaited one at a time and fired
// together (group commit), vs pi's synchronous appendMessage (appendFileSync, no fsync).

import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { createSession } from "@arbor/session-store";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import { BENCH_CWD } from "./bench-data.mjs";
import { prose, seededRandom } from "./session-generator.mjs";
import { collectGarbage, median, timeOnce } from "./timing.mjs";

export const DURABILITY_MODES = ["always", "batch", "never"];

/** Small messages (100–600 characters) cycling user → assistant → toolResult. */
export function smallMessages(count) {
  const rng = seededRandom(5);
  const messages = [];
  for (let i = 0; i < count; i++) {
    const text = prose(rng, 100 + Math.floor(rng() * 500));
    const timestamp = Date.UTC(2026, 2, 1) + i * 1000;
    const kind = i % 3;
    if (kind === 0) messages.push({ role: "user", content: [{ type: "text", text }], timestamp });
    else if (kind === 1) {
      messages.push({
        role: "assistant",
        content: [{ type: "text", text }],
        api: "anthropic-messages",
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        usage: {
          input: 900,
          output: 120,
          cacheRead: 0,
          cacheWrite: 0,
          totalTokens: 1020,
          cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
        },
        stopReason: "stop",
        timestamp,
      });
    } else {
      messages.push({
        role: "toolResult",
        toolCallId: `toolu_${i}`,
        toolName: "read",
        content: [{ type: "text", text }],
        isError: false,
        timestamp,
      });
    }
  }
  return messages;
}

/** Both sides start from a session that already holds a user and an assistant message (pi writes nothing before). */
const opening = smallMessages(2);

async function arborRun(root, durability, messages, fired) {
  const dir = mkdtempSync(join(root, `arbor-${durability}-`));
  const session = await createSession({ dir, cwd: BENCH_CWD, durability });
  for (const message of opening) await session.appendMessage(message);
  const ms = await timeOnce(async () => {
    if (fired) await Promise.all(messages.map((message) => session.appendMessage(message)));
    else for (const message of messages) await session.appendMessage(message);
  });
  await session.close();
  rmSync(dir, { recursive: true, force: true });
  return ms;
}

async function piRun(root, messages) {
  const dir = mkdtempSync(join(root, "pi-"));
  const manager = SessionManager.create(BENCH_CWD, dir);
  for (const message of opening) manager.appendMessage(message);
  const ms = await timeOnce(() => {
    for (const message of messages) manager.appendMessage(message);
  });
  rmSync(dir, { recursive: true, force: true });
  return ms;
}

/**
 * @returns rows of { side, mode, awaitedPerSec, firedPerSec }
 */
export async function measureAppends({ root, count, runs }) {
  const messages = smallMessages(count);
  const perSec = (ms) => count / (ms / 1000);
  const results = [];
  const piTimes = [];
  const arborTimes = Object.fromEntries(
    DURABILITY_MODES.map((mode) => [mode, { awaited: [], fired: [] }]),
  );
  for (let run = 0; run < runs + 1; run++) {
    for (const mode of DURABILITY_MODES) {
      for (const fired of [false, true]) {
        collectGarbage();
        const ms = await arborRun(root, mode, messages, fired);
        if (run > 0) arborTimes[mode][fired ? "fired" : "awaited"].push(ms);
      }
    }
    collectGarbage();
    const ms = await piRun(root, messages);
    if (run > 0) piTimes.push(ms);
  }
  for (const mode of DURABILITY_MODES) {
    results.push({
      side: "Arbor",
      mode,
      awaitedPerSec: perSec(median(arborTimes[mode].awaited)),
      firedPerSec: perSec(median(arborTimes[mode].fired)),
    });
  }
  const pi = perSec(median(piTimes));
  results.push({
    side: "pi",
    mode: "no fsync (appendFileSync)",
    awaitedPerSec: pi,
    firedPerSec: pi,
  });
  return results;
}
