// `pnpm bench` in apps/server: the server against the same agent in-process (AgentHost),
// request rates of session list and get, and SSE streams held. Loopback only; never in `test`.

import { join } from "node:path";
import { FileSessionStore } from "@arbor/session-store";
import { answerByPrompt } from "../test/helpers/answers.js";
import { startBenchServer } from "./bench-server.js";
import { measureEventLatency } from "./event-latency.js";
import { holdStreams } from "./open-streams.js";
import { callRate, requestRate } from "./request-rate.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const DELTAS = 200;
const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000);

const bench = await startBenchServer(answerByPrompt);
try {
  const latency = await measureEventLatency(bench, ROUNDS, DELTAS);
  for (let i = 0; i < 50; i++)
    await bench.call("POST", "/v1/sessions", { cwd: `/bench/${i % 5}`, title: `session ${i}` });
  const list = (await (await bench.call("GET", "/v1/sessions?limit=1")).json()) as {
    sessions: Array<{ id: string }>;
  };
  const load = { concurrency: 16, ms: 3000 };
  const sessionId = list.sessions[0]?.id as string;
  const healthRate = await requestRate(bench, "/health", load);
  const listRate = await requestRate(bench, "/v1/sessions?limit=20", load);
  const getRate = await requestRate(bench, `/v1/sessions/${sessionId}`, load);
  // The peer: the same store calls made directly, in the same process, without HTTP.
  const store = new FileSessionStore({ root: join(bench.home, "sessions") });
  const tenant = bench.tenantId;
  const listDirect = await callRate(
    async () => (await store.list({ tenant, limit: 20 })).sessions.length > 0,
    load,
  );
  const getDirect = await callRate(async () => {
    const session = await store.open(sessionId, { tenant, readOnly: true });
    await session.close();
    return true;
  }, load);
  const streams = await holdStreams(bench, STREAMS);

  const ms = (n: number) => `${n.toFixed(3)} ms`;
  const versus = (server: number, local: number) =>
    `${(server / local).toFixed(2)}x, +${ms(server - local)}`;
  const rows: Array<[string, string, string, string]> = [
    [
      "first text delta (median), POST then GET events",
      ms(latency.inProcessFirst),
      ms(latency.serverFirst),
      versus(latency.serverFirst, latency.inProcessFirst),
    ],
    [
      "first text delta (median), one POST with Accept: text/event-stream",
      ms(latency.inProcessFirst),
      ms(latency.streamingPostFirst),
      versus(latency.streamingPostFirst, latency.inProcessFirst),
    ],
    [
      "per text delta (median), POST then GET events",
      ms(latency.inProcessPerEvent),
      ms(latency.serverPerEvent),
      versus(latency.serverPerEvent, latency.inProcessPerEvent),
    ],
    [
      "per text delta (median), one POST",
      ms(latency.inProcessPerEvent),
      ms(latency.streamingPostPerEvent),
      versus(latency.streamingPostPerEvent, latency.inProcessPerEvent),
    ],
  ];
  console.log(
    `\narbor-server bench (${ROUNDS} rounds of ${DELTAS} deltas, fake OpenAI server over the real adapter, loopback)\n`,
  );
  console.log("| measure | in-process AgentHost | through arbor-server (SSE) | ratio, added |");
  console.log("| --- | --- | --- | --- |");
  for (const row of rows) console.log(`| ${row.join(" | ")} |`);
  console.log(
    "\n| route (16 clients, 3 s) | requests/s over HTTP | store calls/s direct | ratio | non-2xx |",
  );
  console.log("| --- | --- | --- | --- | --- |");
  const rateRow = (name: string, http: typeof listRate, direct: typeof listRate) =>
    console.log(
      `| ${name} | ${http.perSecond.toFixed(0)} | ${direct.perSecond.toFixed(0)} | ${(http.perSecond / direct.perSecond).toFixed(2)} | ${http.failures} |`,
    );
  console.log(
    `| GET /health (HTTP baseline: no key, no store) | ${healthRate.perSecond.toFixed(0)} | – | – | ${healthRate.failures} |`,
  );
  rateRow("GET /v1/sessions?limit=20 (50 sessions)", listRate, listDirect);
  rateRow("GET /v1/sessions/:id", getRate, getDirect);
  console.log(
    "\n| SSE streams on one run | opened | refused | got their end event | open time | server RSS growth |",
  );
  console.log("| --- | --- | --- | --- | --- | --- |");
  console.log(
    `| ${STREAMS} | ${streams.opened} | ${streams.refused} | ${streams.ended} | ${streams.openMs.toFixed(0)} ms | ${streams.rssGrowthMb.toFixed(1)} MB |`,
  );
} finally {
  await bench.close();
}
