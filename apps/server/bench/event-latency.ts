import { join } from "node:path";
import { AgentHost, defineAgent } from "@arbor/orchestration";
import { FileSessionStore } from "@arbor/session-store";
import type { BenchServer } from "./bench-server.js";
import { median } from "./bench-server.js";

/** Timings of one streamed answer, in milliseconds from the prompt. */
interface Timing {
  firstEvent: number;
  /** Time per text delta between the first and the last. */
  perEvent: number;
}

const definition = defineAgent({
  name: "helper",
  models: ["fake/fake-model"],
  systemPrompt: "You help.",
});

/** The same agent in-process through AgentHost: prompt to first delta, and per delta. */
async function inProcess(
  bench: BenchServer,
  store: FileSessionStore,
  deltas: number,
): Promise<Timing> {
  const created = await store.create({ cwd: "/bench" });
  const sessionId = created.id;
  await created.close();
  // From opening the agent on an existing session, as the server does for each run.
  const start = performance.now();
  const host = await AgentHost.open({
    store,
    sessionId,
    agent: definition,
    models: { providers: bench.providers },
  });
  const run = host.prompt(`stream ${deltas}`);
  const times: number[] = [];
  for await (const event of run.events)
    if (event.type === "text_delta") times.push(performance.now());
  await run.result;
  await host.close();
  return timing(start, times);
}

/**
 * The agent through the server, same measures: POST the run and then GET its SSE stream
 * (`twoRequests`), or POST it with `Accept: text/event-stream` and read the answer.
 */
async function throughServer(
  bench: BenchServer,
  deltas: number,
  mode: "twoRequests" | "streamingPost",
): Promise<Timing> {
  const session = (await (await bench.call("POST", "/v1/sessions", { cwd: "/bench" })).json()) as {
    id: string;
  };
  const start = performance.now();
  const body = { agent: "helper", prompt: `stream ${deltas}` };
  let res: Response;
  if (mode === "streamingPost") {
    res = await bench.call("POST", `/v1/sessions/${session.id}/runs`, body, {
      accept: "text/event-stream",
    });
  } else {
    const started = await bench.call("POST", `/v1/sessions/${session.id}/runs`, body);
    const { runId } = (await started.json()) as { runId: string };
    res = await bench.call("GET", `/v1/runs/${runId}/events`);
  }
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const times: number[] = [];
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    const now = performance.now();
    buffer += decoder.decode(value, { stream: true });
    let at = buffer.indexOf("\n\n");
    while (at >= 0) {
      if (buffer.slice(0, at).includes("event: text_delta")) times.push(now);
      buffer = buffer.slice(at + 2);
      at = buffer.indexOf("\n\n");
    }
  }
  return timing(start, times);
}

function timing(start: number, times: number[]): Timing {
  const first = times[0] ?? Number.NaN;
  const last = times.at(-1) ?? Number.NaN;
  return { firstEvent: first - start, perEvent: (last - first) / Math.max(1, times.length - 1) };
}

/** Answers of each path run before the timed ones. */
const WARM_UP = 10;

/** Medians of the three paths over `rounds` answers of `deltas` deltas each, taking turns. */
export async function measureEventLatency(bench: BenchServer, rounds: number, deltas: number) {
  const store = new FileSessionStore({ root: join(bench.home, "in-process") });
  const local: Timing[] = [];
  const two: Timing[] = [];
  const one: Timing[] = [];
  // Untimed warm-up: the first answers of each path run slower while V8 compiles the code
  // on it (on this machine the first of three series of 15 stayed 1–4 ms above the others).
  for (let i = 0; i < WARM_UP; i++) {
    await inProcess(bench, store, deltas);
    await throughServer(bench, deltas, "twoRequests");
    await throughServer(bench, deltas, "streamingPost");
  }
  for (let i = 0; i < rounds; i++) {
    local.push(await inProcess(bench, store, deltas));
    two.push(await throughServer(bench, deltas, "twoRequests"));
    one.push(await throughServer(bench, deltas, "streamingPost"));
  }
  const first = (timings: Timing[]) => median(timings.map((t) => t.firstEvent));
  const perEvent = (timings: Timing[]) => median(timings.map((t) => t.perEvent));
  return {
    inProcessFirst: first(local),
    serverFirst: first(two),
    streamingPostFirst: first(one),
    inProcessPerEvent: perEvent(local),
    serverPerEvent: perEvent(two),
    streamingPostPerEvent: perEvent(one),
  };
}
