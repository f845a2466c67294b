import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lastUserText } from "./helpers/answers.js";
import { clusterAnswers } from "./helpers/cluster-answers.js";
import { failUnderCi } from "./helpers/pg-cluster.js";
import { clusterUnavailable, ServerCluster } from "./helpers/server-cluster.js";
import { idsOf, readSse } from "./helpers/sse-client.js";

failUnderCi(clusterUnavailable, "the cluster tests");

let c: ServerCluster;
let db: pg.Client;
beforeAll(async () => {
  if (clusterUnavailable) return;
  // Not a failover test: a long lease, so the machine's load never expires one.
  c = await ServerCluster.start({
    instances: 3,
    fallback: clusterAnswers(),
    leaseTtlMs: 15_000,
  });
  db = new pg.Client({ connectionString: c.pg.connectionString });
  await db.connect();
}, 90_000);
afterAll(async () => {
  await db?.end();
  await c?.close();
}, 60_000);

/** The model calls the fake provider received for a prompt (a re-executed run would add one). */
function callsFor(prompt: string): number {
  return c.fake.requests.filter((r) =>
    lastUserText(r.body as Record<string, unknown>).includes(prompt),
  ).length;
}

async function roles(i: number, sessionId: string): Promise<string[]> {
  const res = await c.call(i, "GET", `/v1/sessions/${sessionId}/context`);
  const body = (await res.json()) as { messages: Array<{ role: string }> };
  return body.messages.map((m) => m.role);
}

describe.skipIf(clusterUnavailable !== undefined)("runs across three instances", () => {
  it("two instances racing to run on one session: one 202 and one 409 with reject", async () => {
    for (let round = 0; round < 3; round++) {
      const sessionId = await c.newSession(round % 3);
      const [a, b] = await Promise.all([
        c.startRun(0, sessionId, `slow 10 race-${round}-a`),
        c.startRun(1, sessionId, `slow 10 race-${round}-b`),
      ]);
      expect([a.status, b.status].sort()).toEqual([202, 409]);
      const loser = a.status === 409 ? a : b;
      expect(loser.body).toMatchObject({ error: { code: "session_busy" } });
      const winner = a.status === 202 ? a : b;
      expect(await c.waitForRun(2, winner.body.runId as string)).toMatchObject({
        status: "completed",
      });
      expect(await roles(2, sessionId)).toEqual(["user", "assistant"]);
    }
  }, 60_000);

  it("with enqueue, racing runs on one session both run, one after the other, each once", async () => {
    const sessionId = await c.newSession(0);
    const started = await Promise.all(
      [0, 1, 2].map((i) => c.startRun(i, sessionId, `slow 8 queue-${i}`, "enqueue")),
    );
    expect(started.map((s) => s.status)).toEqual([202, 202, 202]);
    const records = await Promise.all(
      started.map((s, i) => c.waitForRun(i, s.body.runId as string)),
    );
    for (const record of records) expect(record.status).toBe("completed");
    const spans = records
      .map((r) => [Date.parse(r.startedAt as string), Date.parse(r.endedAt as string)] as const)
      .sort((x, y) => x[0] - y[0]);
    for (let i = 1; i < spans.length; i++)
      expect(spans[i]?.[0]).toBeGreaterThanOrEqual(spans[i - 1]?.[1] as number);
    for (const i of [0, 1, 2]) expect(callsFor(`queue-${i}`)).toBe(1);
    expect(await roles(1, sessionId)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
      "assistant",
    ]);
  }, 60_000);

  it("a run enqueued on B behind A's run starts when A's ends, wherever it is claimed, and streams to C", async () => {
    const sessionId = await c.newSession(0);
    const first = await c.startRun(0, sessionId, "slow 20 first-of-two");
    const second = await c.startRun(1, sessionId, "stream 5 second-of-two", "enqueue");
    expect(second.status).toBe(202);
    expect(second.body.status).toBe("queued");
    const events = await readSse(await c.call(2, "GET", `/v1/runs/${second.body.runId}/events`));
    const ids = idsOf(events);
    expect(ids).toEqual(ids.map((_, i) => i + 1));
    expect(JSON.parse(events.messages.at(-1)?.data ?? "{}")).toMatchObject({ status: "completed" });
    const a = await c.waitForRun(2, first.body.runId as string);
    const b = await c.waitForRun(2, second.body.runId as string);
    expect(Date.parse(b.startedAt as string)).toBeGreaterThanOrEqual(
      Date.parse(a.endedAt as string),
    );
    expect(callsFor("second-of-two")).toBe(1);
  }, 60_000);

  it("stop and abort sent to any instance reach the one executing the run", async () => {
    for (const what of ["abort", "stop"] as const) {
      const sessionId = await c.newSession(0);
      const started = await c.startRun(0, sessionId, `slow 150 ${what}-me`);
      const runId = started.body.runId as string;
      // Wait until it streams, then ask every instance but the executing one.
      await readSse(await c.call(1, "GET", `/v1/runs/${runId}/events`), {
        stopWhen: (r) => r.messages.some((m) => m.event === "text_delta"),
      });
      const { rows } = await db.query<{ owner: string }>(
        "SELECT owner FROM arbor.runs WHERE id = $1",
        [runId],
      );
      const executing = c.instances.findIndex((x) => rows[0]?.owner.includes(`:${x.child.pid}:`));
      expect(executing).toBeGreaterThanOrEqual(0);
      const other = (executing + 1) % 3;
      const asked = await c.call(other, "POST", `/v1/runs/${runId}/${what}`);
      expect(asked.status).toBe(202);
      const ended = await c.waitForRun(other, runId, 10_000);
      // 150 deltas at 20 ms take 3 s; ending well before means the request reached it.
      expect(ended.status).toBe(what === "abort" ? "aborted" : "completed");
      const took = Date.parse(ended.endedAt as string) - Date.parse(ended.startedAt as string);
      if (what === "abort") expect(took).toBeLessThan(2_900);
      expect(await roles(other, sessionId)).toEqual(["user", "assistant"]);
    }
  }, 60_000);

  it("a queued run stopped on another instance is cancelled and never executes", async () => {
    const sessionId = await c.newSession(0);
    const first = await c.startRun(0, sessionId, "slow 30 hold-the-session");
    const queued = await c.startRun(1, sessionId, "never-run-this", "enqueue");
    const cancelled = await c.call(2, "POST", `/v1/runs/${queued.body.runId}/abort`);
    expect(((await cancelled.json()) as { status: string }).status).toBe("cancelled");
    await c.waitForRun(0, first.body.runId as string);
    await new Promise((r) => setTimeout(r, 500));
    expect(callsFor("never-run-this")).toBe(0);
    expect((await c.waitForRun(1, queued.body.runId as string)).status).toBe("cancelled");
  }, 60_000);
});
