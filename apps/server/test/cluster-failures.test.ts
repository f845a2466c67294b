import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lastUserText } from "./helpers/answers.js";
import { clusterAnswers } from "./helpers/cluster-answers.js";
import { failUnderCi } from "./helpers/pg-cluster.js";
import { clusterUnavailable, ServerCluster } from "./helpers/server-cluster.js";
import { idsOf, readSse, type SseReading } from "./helpers/sse-client.js";

failUnderCi(clusterUnavailable, "the cluster tests");

const LEASE_MS = 2000;
let c: ServerCluster;
beforeAll(async () => {
  if (clusterUnavailable) return;
  c = await ServerCluster.start({
    instances: 3,
    fallback: clusterAnswers(),
    leaseTtlMs: LEASE_MS,
    shutdownGraceMs: 1500,
    agents: [
      "  - name: tooler",
      "    models: [fake/fake-model]",
      "    systemPrompt: You use tools.",
      "    extensions:",
      `      - ${fileURLToPath(new URL("./__fixtures__/cluster/slow-tool.ts", import.meta.url))}`,
    ].join("\n"),
  });
}, 90_000);
afterAll(async () => {
  await c?.close();
}, 60_000);

function callsFor(prompt: string): number {
  return c.fake.requests.filter((r) =>
    lastUserText(r.body as Record<string, unknown>).includes(prompt),
  ).length;
}

/** The instance executing a run, from the runs table's owner (host:pid:random). */
async function executingInstance(runId: string): Promise<number> {
  const db = new pg.Client({ connectionString: c.pg.connectionString });
  await db.connect();
  try {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const { rows } = await db.query<{ owner: string | null }>(
        "SELECT owner FROM arbor.runs WHERE id = $1",
        [runId],
      );
      const owner = rows[0]?.owner;
      const at = owner ? c.instances.findIndex((x) => owner.includes(`:${x.child.pid}:`)) : -1;
      if (at >= 0) return at;
      if (Date.now() > deadline) throw new Error(`run ${runId} has no live owner (${owner})`);
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await db.end();
  }
}

/** Reads a run's stream on instance `i` until it ends, bounded. */
async function watch(i: number, runId: string, until: (r: SseReading) => boolean) {
  const res = await c.call(i, "GET", `/v1/runs/${runId}/events`);
  return readSse(res, { stopWhen: until });
}

const ended = (r: SseReading) => r.messages.some((m) => m.event === "end");

/** Kills the executing instance at `when` and checks what the survivors show. */
/** How many killed runs had a partial answer kept (the mid-stream case must have one). */
let keptAnswers = 0;

async function killMidRun(
  prompt: string,
  when: (r: SseReading) => boolean,
  agent = "helper",
): Promise<void> {
  const sessionId = await c.newSession(0);
  const res = await c.call(0, "POST", `/v1/sessions/${sessionId}/runs`, { agent, prompt });
  const started = { status: res.status, body: (await res.json()) as Record<string, string> };
  expect(started.status).toBe(202);
  const runId = started.body.runId as string;
  const victim = await executingInstance(runId);
  const survivor = (victim + 1) % 3;
  const other = (victim + 2) % 3;
  try {
    await checkKill(runId, sessionId, prompt, victim, survivor, other, when);
  } finally {
    if (c.instances[victim]?.child.exitCode !== null || c.instances[victim]?.child.signalCode)
      await c.startInstance(victim);
  }
}

async function checkKill(
  runId: string,
  sessionId: string,
  prompt: string,
  victim: number,
  survivor: number,
  other: number,
  when: (r: SseReading) => boolean,
): Promise<void> {
  await watch(survivor, runId, when);
  const killedAt = Date.now();
  const live = watch(survivor, runId, ended);
  await c.kill(victim, "SIGKILL");
  const reading = await live;
  const waited = Date.now() - killedAt;
  const end = JSON.parse(reading.messages.at(-1)?.data ?? "{}") as Record<string, unknown>;
  expect(reading.messages.at(-1)?.event).toBe("end");
  expect(end).toMatchObject({ id: runId, status: "interrupted", error: { code: "interrupted" } });
  // Within the lease (2 s) plus the backstop's period and the machine's load.
  expect(waited).toBeLessThan(LEASE_MS * 5);
  const ids = idsOf(reading);
  expect(ids).toEqual(ids.map((_, i) => i + 1));
  // The session stays valid: the acknowledged prompt is kept; a new run starts on a survivor.
  const context = (await (
    await c.call(other, "GET", `/v1/sessions/${sessionId}/context`)
  ).json()) as { messages: Array<{ role: string }> };
  expect(context.messages[0]?.role).toBe("user");
  // What the clients saw of the answer being streamed is kept as an aborted message.
  let lastEnd = -1;
  for (const [i, m] of reading.messages.entries()) if (m.event === "message_end") lastEnd = i;
  const seen = reading.messages
    .slice(lastEnd + 1)
    .filter((m) => m.event === "text_delta")
    .map((m) => (JSON.parse(m.data ?? "{}") as { delta: string }).delta)
    .join("");
  const entries = (await (
    await c.call(survivor, "GET", `/v1/sessions/${sessionId}/entries?limit=100`)
  ).json()) as {
    entries: Array<{
      type: string;
      message?: { role: string; stopReason?: string; content: unknown };
    }>;
  };
  const aborted = entries.entries.filter((e) => e.message?.stopReason === "aborted");
  if (seen === "") expect(aborted).toEqual([]);
  else {
    keptAnswers++;
    expect(aborted).toHaveLength(1);
    expect(aborted[0]?.message?.content).toEqual([{ type: "text", text: seen }]);
  }
  const again = await c.startRun(other, sessionId, "stream 3 the-next-run");
  expect(again.status).toBe(202);
  expect(await c.waitForRun(survivor, again.body.runId as string, 30_000)).toMatchObject({
    status: "completed",
  });
  // Never executed twice: one model call for the killed run's prompt, also later.
  await new Promise((r) => setTimeout(r, LEASE_MS));
  expect(callsFor(prompt)).toBe(1);
  expect((await c.waitForRun(other, runId)).status).toBe("interrupted");
}

describe.skipIf(clusterUnavailable !== undefined)("instances that die or stop", () => {
  it("SIGKILL of the executing instance mid-stream: the run reads interrupted everywhere, nothing is re-executed", async () => {
    await killMidRun("slow 400 killed-mid-stream", (r) =>
      r.messages.some((m) => m.event === "text_delta"),
    );
    expect(keptAnswers).toBe(1);
  }, 60_000);

  it("SIGKILL of the executing instance during a provider backoff", async () => {
    const prompt = "backoff killed-in-backoff";
    await killMidRun(prompt, () => callsFor(prompt) > 0);
  }, 60_000);

  it("SIGKILL of the executing instance while a tool runs", async () => {
    // The model asked for the tool (its message is stored); the tool is waiting when killed.
    await killMidRun(
      "tool wait 60000 killed-mid-tool",
      (r) => r.messages.some((m) => m.event === "message_end"),
      "tooler",
    );
  }, 60_000);

  it("an instance that stalls past its lease is fenced: it writes nothing more and stops the run", async () => {
    const sessionId = await c.newSession(1);
    const started = await c.startRun(1, sessionId, "slow 400 stalls");
    const runId = started.body.runId as string;
    const stalled = await executingInstance(runId);
    const survivor = (stalled + 1) % 3;
    await watch(survivor, runId, (r) => r.messages.some((m) => m.event === "text_delta"));
    const live = watch(survivor, runId, ended);
    const pid = c.instances[stalled]?.child.pid as number;
    process.kill(pid, "SIGSTOP");
    let reading: SseReading;
    try {
      reading = await live;
    } finally {
      process.kill(pid, "SIGCONT");
    }
    expect(JSON.parse(reading.messages.at(-1)?.data ?? "{}")).toMatchObject({
      status: "interrupted",
    });
    const db = new pg.Client({ connectionString: c.pg.connectionString });
    await db.connect();
    try {
      const count = async () =>
        Number(
          (
            await db.query<{ n: string }>(
              "SELECT count(*) AS n FROM arbor.run_events WHERE run_id = $1",
              [runId],
            )
          ).rows[0]?.n,
        );
      const atInterruption = await count();
      // Woken up, the stalled instance keeps streaming into its buffers for a moment: none of
      // it may land, and the run must stay interrupted.
      await new Promise((r) => setTimeout(r, LEASE_MS));
      expect(await count()).toBe(atInterruption);
      expect((await c.waitForRun(survivor, runId)).status).toBe("interrupted");
      expect(idsOf(reading)).toEqual(idsOf(reading).map((_, i) => i + 1));
      expect(idsOf(reading).length).toBe(atInterruption);
    } finally {
      await db.end();
    }
    // The session takes a new run on a survivor (the stalled writer's session lease is gone too).
    const again = await c.startRun(survivor, sessionId, "stream 3 after the stall");
    expect(again.status).toBe(202);
    expect((await c.waitForRun(survivor, again.body.runId as string, 30_000)).status).toBe(
      "completed",
    );
  }, 60_000);

  it("SIGTERM: a short run finishes within the grace, a long one is interrupted and its watchers told", async () => {
    const short = await c.newSession(0);
    const long = await c.newSession(0);
    // The instance asked runs a run of a free session itself.
    const executing = 2;
    const a = await c.startRun(executing, short, "slow 20 finishes-in-grace");
    const b = await c.startRun(executing, long, "slow 500 cut-by-shutdown");
    expect(await executingInstance(a.body.runId as string)).toBe(executing);
    expect(await executingInstance(b.body.runId as string)).toBe(executing);
    const survivor = (executing + 1) % 3;
    await watch(survivor, b.body.runId as string, (r) =>
      r.messages.some((m) => m.event === "text_delta"),
    );
    const watching = watch(survivor, b.body.runId as string, ended);
    // A client of the stopping instance itself also gets the end before its stream closes.
    const own = watch(executing, b.body.runId as string, ended).catch(
      (error: Error) => ({ messages: [], comments: [], blocks: [], error }) as SseReading,
    );
    await new Promise((r) => setTimeout(r, 200));
    try {
      const code = await c.kill(executing, "SIGTERM");
      expect(code).toBe(0);
    } finally {
      await c.startInstance(executing);
    }
    expect((await c.waitForRun(survivor, a.body.runId as string)).status).toBe("completed");
    const reading = await watching;
    expect(JSON.parse(reading.messages.at(-1)?.data ?? "{}")).toMatchObject({
      status: "interrupted",
    });
    const ownReading = await own;
    expect(ownReading.messages.at(-1)?.event).toBe("end");
    expect(JSON.parse(ownReading.messages.at(-1)?.data ?? "{}")).toMatchObject({
      status: "interrupted",
    });
  }, 60_000);

  it("PostgreSQL restarted under load: 503 with a clear code while it is down, then recovery; nothing acknowledged is lost", async () => {
    const sessions = await Promise.all([0, 1, 2].map((i) => c.newSession(i)));
    const runs = await Promise.all(
      sessions.map((id, i) => c.startRun(i, id, `slow 60 during-restart-${i}`)),
    );
    for (const run of runs) expect(run.status).toBe(202);
    // What clients were shown before the restart is acknowledged: it must all come back.
    const shown = await Promise.all(
      runs.map((run, i) =>
        watch((i + 1) % 3, run.body.runId as string, (r) => idsOf(r).length >= 5),
      ),
    );
    await c.pg.stop();
    try {
      for (const i of [0, 1, 2]) {
        const list = await c.call(i, "GET", "/v1/sessions");
        expect(list.status).toBe(503);
        expect(((await list.json()) as { error: { code: string } }).error.code).toBe(
          "store_unavailable",
        );
        const start = await c.call(i, "POST", `/v1/sessions/${sessions[i]}/runs`, {
          agent: "helper",
          prompt: "while down",
        });
        expect(start.status).toBe(503);
        expect((await c.call(i, "GET", "/ready", undefined)).status).toBe(503);
      }
    } catch (error) {
      for (const [i, x] of c.instances.entries())
        if (x.child.exitCode !== null) console.error(`instance ${i} exited:\n${x.output.join("")}`);
      throw error;
    } finally {
      await c.pg.restart();
    }
    // Recovery: every instance answers again within a bounded time.
    const deadline = Date.now() + 20_000;
    for (const i of [0, 1, 2]) {
      for (;;) {
        const res = await c.call(i, "GET", "/v1/sessions").catch(() => undefined);
        if (res?.status === 200) break;
        if (Date.now() > deadline) throw new Error(`instance ${i} did not recover`);
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    for (const [i, run] of runs.entries()) {
      const record = await c.waitForRun(i, run.body.runId as string, 30_000);
      expect(["completed", "failed", "interrupted"]).toContain(record.status);
      // Every event acknowledged (stored) before the restart is still served, in order.
      const reading = await watch((i + 1) % 3, run.body.runId as string, ended);
      const ids = idsOf(reading);
      expect(ids).toEqual(ids.map((_, k) => k + 1));
      const before = (shown[i] as SseReading).messages.filter((m) => m.id !== undefined);
      expect(reading.messages.slice(0, before.length)).toEqual(before);
      const context = (await (
        await c.call(i, "GET", `/v1/sessions/${sessions[i]}/context`)
      ).json()) as { messages: Array<{ role: string }> };
      expect(context.messages[0]?.role).toBe("user");
    }
    // And new runs work on every instance.
    for (const i of [0, 1, 2]) {
      const id = await c.newSession(i);
      const run = await c.startRun(i, id, `stream 4 after-restart-${i}`);
      expect(run.status).toBe(202);
      expect((await c.waitForRun(i, run.body.runId as string)).status).toBe("completed");
    }
  }, 90_000);
});
