import { readFileSync } from "node:fs";
import { request } from "node:http";
import type { BenchServer } from "./bench-server.js";

/**
 * Opens `count` SSE streams on one run that waits behind a slow one, checks that every
 * stream answered 200 and stays open, then ends the runs and counts the streams that got
 * their `end` event. Returns the counts and the server process's memory growth (MiB).
 */
export async function holdStreams(bench: BenchServer, count: number) {
  const session = (await (
    await bench.call("POST", "/v1/sessions", { cwd: "/bench/streams" })
  ).json()) as { id: string };
  const busy = (await (
    await bench.call("POST", `/v1/sessions/${session.id}/runs`, {
      agent: "helper",
      prompt: "slow 100000",
    })
  ).json()) as { runId: string };
  const waiting = (await (
    await bench.call("POST", `/v1/sessions/${session.id}/runs`, {
      agent: "helper",
      prompt: "hi",
      ifBusy: "enqueue",
    })
  ).json()) as { runId: string };
  const url = new URL(`${bench.server.url}/v1/runs/${waiting.runId}/events`);
  const rssBefore = serverRss(bench);
  let opened = 0;
  let ended = 0;
  let refused = 0;
  const finished: Array<Promise<void>> = [];
  const started = performance.now();
  const openAll: Array<Promise<void>> = [];
  for (let i = 0; i < count; i++) {
    openAll.push(
      new Promise<void>((resolveOpen) => {
        const done = new Promise<void>((resolveDone) => {
          const req = request(
            url,
            { headers: { authorization: `Bearer ${bench.key}` }, agent: false },
            (res) => {
              if (res.statusCode === 200) opened++;
              else refused++;
              resolveOpen();
              let text = "";
              res.setEncoding("utf8");
              res.on("data", (chunk: string) => {
                text += chunk;
                if (text.includes("event: end")) {
                  ended++;
                  text = "";
                }
              });
              res.on("end", () => resolveDone());
              res.on("error", () => resolveDone());
            },
          );
          req.on("error", () => {
            refused++;
            resolveOpen();
            resolveDone();
          });
          req.end();
        });
        finished.push(done);
      }),
    );
  }
  await Promise.all(openAll);
  const openMs = performance.now() - started;
  await new Promise((r) => setTimeout(r, 1000));
  const rssHeld = serverRss(bench);
  await bench.call("POST", `/v1/runs/${waiting.runId}/abort`);
  await bench.call("POST", `/v1/runs/${busy.runId}/abort`);
  await Promise.all(finished);
  return { opened, refused, ended, openMs, rssGrowthMb: (rssHeld - rssBefore) / 1024 };
}

/** The server process's resident memory in KiB (Linux `/proc`), 0 where unknown. */
function serverRss(bench: BenchServer): number {
  try {
    const status = readFileSync(`/proc/${bench.server.process.pid}/status`, "utf8");
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  } catch {
    return 0;
  }
}
