import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerByPrompt } from "./helpers/answers.js";
import { failUnderCi } from "./helpers/pg-cluster.js";
import { clusterUnavailable, ServerCluster } from "./helpers/server-cluster.js";
import { idsOf, readSse } from "./helpers/sse-client.js";

failUnderCi(clusterUnavailable, "the cluster tests");

let c: ServerCluster;
beforeAll(async () => {
  if (clusterUnavailable) return;
  // Events are kept 1 s after their run ended, so the retention test needs no clock seam.
  c = await ServerCluster.start({
    instances: 3,
    fallback: answerByPrompt,
    eventRetentionMs: 1000,
    leaseTtlMs: 15_000,
  });
}, 90_000);
afterAll(async () => {
  await c?.close();
}, 60_000);

describe.skipIf(clusterUnavailable !== undefined)("three instances on one PostgreSQL", () => {
  it("a key made through A works on B and C; a revoked one fails on all", async () => {
    for (const i of [0, 1, 2]) expect((await c.call(i, "GET", "/v1/sessions")).status).toBe(200);
    const admin = { authorization: `Bearer ${c.adminKey}`, "content-type": "application/json" };
    const tenant = (await (
      await fetch(`${c.url(1)}/v1/admin/tenants`, {
        method: "POST",
        headers: admin,
        body: '{"name":"other"}',
      })
    ).json()) as { id: string };
    const issued = (await (
      await fetch(`${c.url(1)}/v1/admin/tenants/${tenant.id}/keys`, {
        method: "POST",
        headers: admin,
      })
    ).json()) as { id: string; key: string };
    const as = (i: number) =>
      fetch(`${c.url(i)}/v1/sessions`, { headers: { authorization: `Bearer ${issued.key}` } });
    for (const i of [0, 1, 2]) expect((await as(i)).status).toBe(200);
    const revoked = await fetch(`${c.url(2)}/v1/admin/tenants/${tenant.id}/keys/${issued.id}`, {
      method: "DELETE",
      headers: admin,
    });
    expect(revoked.status).toBeLessThan(300);
    for (const i of [0, 1, 2]) expect((await as(i)).status).toBe(401);
  }, 30_000);

  it("a run on A is watched live from B with the same ids, and resumed with Last-Event-ID on C", async () => {
    const sessionId = await c.newSession(0);
    const started = await c.startRun(0, sessionId, "slow 40");
    expect(started.status).toBe(202);
    const { runId } = started.body as { runId: string };
    // B watches live, from the start.
    const live = readSse(await c.call(1, "GET", `/v1/runs/${runId}/events`));
    // C reads part of it, drops the connection, and resumes from its cursor.
    const part = await readSse(await c.call(2, "GET", `/v1/runs/${runId}/events`), {
      stopWhen: (r) => r.messages.filter((m) => m.event === "text_delta").length >= 10,
    });
    const cursor = idsOf(part).at(-1) as number;
    expect(cursor).toBeGreaterThan(0);
    const rest = await readSse(
      await c.call(2, "GET", `/v1/runs/${runId}/events`, undefined, {
        "last-event-id": String(cursor),
      }),
    );
    const watched = await live;
    const ids = idsOf(watched);
    expect(ids).toEqual(ids.map((_, i) => i + 1));
    expect(watched.messages.filter((m) => m.event === "text_delta")).toHaveLength(40);
    expect(watched.messages.at(-1)?.event).toBe("end");
    expect(JSON.parse(watched.messages.at(-1)?.data ?? "{}")).toMatchObject({
      id: runId,
      status: "completed",
    });
    // C's two halves are exactly B's events: same ids, same data, nothing lost or repeated.
    const joined = [...part.messages.filter((m) => m.id !== undefined), ...rest.messages];
    expect(joined.map((m) => [m.id, m.event, m.data])).toEqual(
      watched.messages.map((m) => [m.id, m.event, m.data]),
    );
    // Keep-alives are comments without an id.
    for (const block of [...watched.blocks, ...rest.blocks])
      if (block.startsWith(":")) expect(block).not.toMatch(/^id:/m);
    // Every instance reads the same session.
    for (const i of [0, 1, 2]) {
      const context = (await (
        await c.call(i, "GET", `/v1/sessions/${sessionId}/context`)
      ).json()) as { messages: Array<{ role: string }> };
      expect(context.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    }
  }, 60_000);

  it("a cursor older than the retention gets one resync event (no id), then the end; a cursor at the end gets only the end", async () => {
    const sessionId = await c.newSession(1);
    const started = await c.startRun(1, sessionId, "stream 12");
    const runId = started.body.runId as string;
    const record = await c.waitForRun(2, runId);
    const lastSeq = record.lastSeq as number;
    expect(lastSeq).toBeGreaterThan(5);
    // Wait (bounded) until an instance pruned the run's events.
    const deadline = Date.now() + 15_000;
    for (;;) {
      const now = (await (await c.call(0, "GET", `/v1/runs/${runId}`)).json()) as {
        eventsPrunedThrough?: number;
      };
      if (now.eventsPrunedThrough === lastSeq) break;
      if (Date.now() > deadline) throw new Error("the run's events were not pruned in 15 s");
      await new Promise((r) => setTimeout(r, 200));
    }
    for (const cursor of ["0", "3", String(lastSeq - 1)]) {
      const reading = await readSse(
        await c.call(0, "GET", `/v1/runs/${runId}/events`, undefined, { "last-event-id": cursor }),
      );
      expect(reading.messages.map((m) => m.event)).toEqual(["resync", "end"]);
      expect(reading.messages.every((m) => m.id === undefined)).toBe(true);
      expect(JSON.parse(reading.messages[0]?.data ?? "{}")).toMatchObject({
        run: { id: runId, status: "completed" },
        missedFrom: Number(cursor) + 1,
        missedThrough: lastSeq,
      });
    }
    const atEnd = await readSse(
      await c.call(2, "GET", `/v1/runs/${runId}/events`, undefined, {
        "last-event-id": String(lastSeq),
      }),
    );
    expect(atEnd.messages.map((m) => m.event)).toEqual(["end"]);
    // The session itself is untouched by the events' retention.
    const context = (await (
      await c.call(2, "GET", `/v1/sessions/${sessionId}/context`)
    ).json()) as {
      messages: Array<{ role: string }>;
    };
    expect(context.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
  }, 60_000);
});
