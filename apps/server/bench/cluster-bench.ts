// `pnpm bench:cluster` in apps/server: three `arbor-server` processes on one throwaway
// PostgreSQL. Cross-instance fan-out (events/s delivered to watchers on other instances),
// the latency cross-instance delivery adds over same-instance delivery, runs/s and
// appends/s per instance, and the database's work per run. Loopback only; never in `test`.

import pg from "pg";
import { answerByPrompt } from "../test/helpers/answers.js";
import { ServerCluster } from "../test/helpers/server-cluster.js";
import { readSse } from "../test/helpers/sse-client.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 60);
const DELTAS = Number(process.env.BENCH_DELTAS ?? 200);
const LATENCY_RUNS = Number(process.env.BENCH_LATENCY_RUNS ?? 10);

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}

/** Reads a run's SSE stream, noting when each event id arrived. */
async function arrivals(c: ServerCluster, i: number, runId: string): Promise<Map<string, number>> {
  const seen = new Map<string, number>();
  const res = await c.call(i, "GET", `/v1/runs/${runId}/events`);
  await readSse(res, {
    stopWhen: (r) => {
      const last = r.messages.at(-1);
      if (last?.id !== undefined && !seen.has(last.id)) seen.set(last.id, performance.now());
      return last?.event === "end";
    },
  });
  return seen;
}

async function dbCounters(client: pg.Client) {
  const { rows } = await client.query<{
    xact_commit: string;
    tup_inserted: string;
    tup_updated: string;
    tup_fetched: string;
  }>(
    "SELECT xact_commit, tup_inserted, tup_updated, tup_fetched FROM pg_stat_database WHERE datname = current_database()",
  );
  const row = rows[0] as Record<string, string>;
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Number(v)]));
}

const c = await ServerCluster.start({ instances: 3, fallback: answerByPrompt, leaseTtlMs: 15_000 });
const db = new pg.Client({ connectionString: c.pg.connectionString });
await db.connect();
try {
  // 1. Added latency: each event's arrival at a watcher on another instance (B) against a
  //    watcher on the executing one (A), for runs streaming a delta every 20 ms.
  const added: number[] = [];
  for (let round = 0; round < LATENCY_RUNS; round++) {
    const sessionId = await c.newSession(0);
    const { body } = await c.startRun(0, sessionId, "slow 50");
    const runId = body.runId as string;
    const [same, cross] = await Promise.all([arrivals(c, 0, runId), arrivals(c, 1, runId)]);
    for (const [id, at] of same) {
      const other = cross.get(id);
      if (other !== undefined && Number(id) > 1) added.push(other - at);
    }
  }
  added.sort((a, b) => a - b);

  // 2. Fan-out: RUNS runs of DELTAS fast deltas started round-robin; every run watched on
  //    the two instances that do not execute it.
  const before = await dbCounters(db);
  const storedBefore = Number(
    (await db.query<{ n: string }>("SELECT count(*) AS n FROM arbor.run_events")).rows[0]?.n,
  );
  const started = performance.now();
  const sessions = await Promise.all(Array.from({ length: RUNS }, (_, i) => c.newSession(i % 3)));
  const runStarted = performance.now();
  const results = await Promise.all(
    sessions.map(async (sessionId, i) => {
      const at = i % 3;
      const { body } = await c.startRun(at, sessionId, `stream ${DELTAS} #${i}`);
      const runId = body.runId as string;
      const watchers = await Promise.all(
        [(at + 1) % 3, (at + 2) % 3].map((w) => arrivals(c, w, runId)),
      );
      return watchers.reduce((n, seen) => n + seen.size, 0);
    }),
  );
  const elapsedS = (performance.now() - runStarted) / 1000;
  const after = await dbCounters(db);
  const delivered = results.reduce((a, b) => a + b, 0);
  const { rows } = await db.query<{ events: string }>(
    "SELECT count(*) AS events FROM arbor.run_events",
  );
  const stored = Number(rows[0]?.events) - storedBefore;
  const perRun = (k: string) => ((after[k] as number) - (before[k] as number)) / RUNS;

  const size = await db.query<{ bytes: string; rows: string }>(
    "SELECT pg_total_relation_size('arbor.run_events') AS bytes, (SELECT count(*) FROM arbor.run_events) AS rows",
  );
  const bytesPerEvent = Number(size.rows[0]?.bytes) / Number(size.rows[0]?.rows);
  const ms = (n: number) => `${n.toFixed(2)} ms`;
  console.log(
    `\narbor-server cluster bench: 3 instances, one PostgreSQL (fsync off), fake OpenAI server, loopback; load ${(await import("node:os")).loadavg()[0]?.toFixed(1)}\n`,
  );
  console.log("| measure | value |");
  console.log("| --- | --- |");
  console.log(
    `| added latency of cross-instance delivery, p50 / p99 / max (${added.length} events, ${LATENCY_RUNS} runs of 50 deltas at 20 ms) | ${ms(quantile(added, 0.5))} / ${ms(quantile(added, 0.99))} / ${ms(added.at(-1) ?? Number.NaN)} |`,
  );
  console.log(
    `| events/s delivered to watchers on other instances (${RUNS} runs × ${DELTAS} deltas, 2 remote watchers each) | ${Math.round(delivered / elapsedS)} |`,
  );
  console.log(
    `| events/s stored (appended), whole cluster / per instance | ${Math.round(stored / elapsedS)} / ${Math.round(stored / elapsedS / 3)} |`,
  );
  console.log(
    `| runs/s, whole cluster / per instance (each run streams ${DELTAS} deltas) | ${(RUNS / elapsedS).toFixed(1)} / ${(RUNS / elapsedS / 3).toFixed(1)} |`,
  );
  console.log(
    `| database work per run (${DELTAS} deltas): commits / rows inserted / rows updated | ${perRun("xact_commit").toFixed(1)} / ${perRun("tup_inserted").toFixed(1)} / ${perRun("tup_updated").toFixed(1)} |`,
  );
  console.log(
    `| run_events on disk per event (table + primary key, text deltas) | ${Math.round(bytesPerEvent)} bytes |`,
  );
  console.log(
    `| sessions created + runs, wall time | ${((performance.now() - started) / 1000).toFixed(1)} s |`,
  );
} finally {
  await db.end();
  await c.close();
}
