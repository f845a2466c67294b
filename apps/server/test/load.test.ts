import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerByPrompt } from "./helpers/answers.js";
import { expectCompletedRun } from "./helpers/run-checks.js";
import { type SocketServer, startSocketServer } from "./helpers/socket-server.js";
import { readSse } from "./helpers/sse-client.js";

/** Concurrent runs, each with its own session and SSE client. */
const RUNS = 200;
const DELTAS = 20;

let s: SocketServer;
beforeAll(async () => {
  s = await startSocketServer(
    answerByPrompt,
    "  sseStreamsPerKey: 1000\n  requestsPerMinute: 1000000",
  );
});
afterAll(() => s.close());

describe("load (loopback, bounded)", () => {
  it(`runs ${RUNS} streamed answers at once, each watched over SSE: no 5xx, no lost or duplicated id, every session valid`, async () => {
    const statuses: number[] = [];
    const track = async (res: Promise<Response>) => {
      const r = await res;
      statuses.push(r.status);
      return r;
    };
    const started = Date.now();
    const results = await Promise.all(
      Array.from({ length: RUNS }, async (_, i) => {
        const created = await track(s.call("POST", "/v1/sessions", { cwd: `/srv/load/${i % 10}` }));
        const { id } = (await created.json()) as { id: string };
        const run = await track(
          s.call("POST", `/v1/sessions/${id}/runs`, {
            agent: "helper",
            prompt: `stream ${DELTAS} #${i}`,
          }),
        );
        const { runId } = (await run.json()) as { runId: string };
        const reading = await readSse(await track(s.call("GET", `/v1/runs/${runId}/events`)));
        return { id, runId, reading };
      }),
    );
    const elapsed = Date.now() - started;
    expect(statuses.filter((status) => status >= 500)).toEqual([]);
    for (const { reading, runId } of results) expectCompletedRun(reading, runId, DELTAS);
    const checks = await Promise.all(
      results.map(async ({ id }) => {
        const res = await s.call("GET", `/v1/sessions/${id}/context`);
        statuses.push(res.status);
        return (await res.json()) as {
          messages: Array<{ role: string; content: Array<{ text?: string }> }>;
        };
      }),
    );
    for (const context of checks) {
      expect(context.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
      expect(context.messages[1]?.content.map((c) => c.text ?? "").join("")).toBe(
        "f".repeat(DELTAS),
      );
    }
    expect(statuses.filter((status) => status >= 500)).toEqual([]);
    // Reported, not asserted: the machine is shared.
    console.log(`load: ${RUNS} runs with SSE clients in ${elapsed} ms`);
  }, 120_000);
});
