import { connect } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { answerByPrompt } from "./helpers/answers.js";
import { type SocketServer, startSocketServer } from "./helpers/socket-server.js";
import { idsOf, readSse } from "./helpers/sse-client.js";

let s: SocketServer;
beforeEach(async () => {
  s = await startSocketServer(answerByPrompt);
});
afterEach(() => s.close());

async function json(res: Response): Promise<Record<string, unknown>> {
  return (await res.json()) as Record<string, unknown>;
}

async function startRun(
  prompt: string,
  ifBusy?: string,
): Promise<{ sessionId: string; runId: string }> {
  const session = await json(await s.call("POST", "/v1/sessions", { cwd: "/srv/app" }));
  const res = await s.call("POST", `/v1/sessions/${session.id as string}/runs`, {
    agent: "helper",
    prompt,
    ...(ifBusy ? { ifBusy } : {}),
  });
  expect(res.status).toBe(202);
  return { sessionId: session.id as string, runId: (await json(res)).runId as string };
}

/** The text of the session's last message, as its context gives it. */
async function lastAnswerText(sessionId: string): Promise<string | undefined> {
  const context = await json(await s.call("GET", `/v1/sessions/${sessionId}/context`));
  const messages = context.messages as Array<{ content: Array<{ text?: string }> }>;
  return messages
    .at(-1)
    ?.content.map((c) => c.text ?? "")
    .join("");
}

async function waitForEnd(runId: string): Promise<Record<string, unknown>> {
  for (;;) {
    const run = await json(await s.call("GET", `/v1/runs/${runId}`));
    if (run.status !== "running" && run.status !== "queued") return run;
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe("SSE over a socket", () => {
  it("streams events live, before the run ends, with increasing ids, then ends", async () => {
    const { runId } = await startRun("slow 30");
    const res = await s.call("GET", `/v1/runs/${runId}/events`);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    let firstDeltaAt: number | undefined;
    const reading = await readSse(res, {
      stopWhen: (r) => {
        if (firstDeltaAt === undefined && r.messages.some((m) => m.event === "text_delta")) {
          firstDeltaAt = Date.now();
        }
        return false;
      },
    });
    const run = await json(await s.call("GET", `/v1/runs/${runId}`));
    expect(Date.parse(run.endedAt as string) - (firstDeltaAt as number)).toBeGreaterThan(200);
    const ids = idsOf(reading);
    expect(ids).toEqual(ids.map((_, i) => i + 1));
    expect(reading.messages.filter((m) => m.event === "text_delta")).toHaveLength(30);
    expect(reading.messages.at(-1)?.event).toBe("end");
    expect(reading.messages.at(-1)?.id).toBeUndefined();
  });

  it("sends keep-alives as comments without an id while a run waits", async () => {
    const first = await startRun("slow 40");
    const queuedRes = await s.call("POST", `/v1/sessions/${first.sessionId}/runs`, {
      agent: "helper",
      prompt: "next",
      ifBusy: "enqueue",
    });
    const queued = (await json(queuedRes)).runId as string;
    const reading = await readSse(await s.call("GET", `/v1/runs/${queued}/events`));
    expect(reading.comments.length).toBeGreaterThanOrEqual(1);
    for (const comment of reading.comments) expect(comment).not.toMatch(/^id:/m);
    expect(idsOf(reading)).toEqual(idsOf(reading).map((_, i) => i + 1));
    expect(reading.messages.at(-1)?.event).toBe("end");
  });

  it("keeps running when the client disconnects", async () => {
    const { runId, sessionId } = await startRun("slow 30");
    const partial = await readSse(await s.call("GET", `/v1/runs/${runId}/events`), {
      stopWhen: (r) => r.messages.filter((m) => m.event === "text_delta").length >= 3,
    });
    expect(partial.messages.length).toBeGreaterThan(0);
    const run = await waitForEnd(runId);
    expect(run.status).toBe("completed");
    expect(await lastAnswerText(sessionId)).toBe("s".repeat(30));
  });

  it("resumes with Last-Event-ID mid-run and after the run ended, with no gap or duplicate", async () => {
    const { runId } = await startRun("slow 40");
    const first = await readSse(await s.call("GET", `/v1/runs/${runId}/events`), {
      stopWhen: (r) => idsOf(r).length >= 6,
    });
    const last = idsOf(first).at(-1) as number;
    const second = await readSse(
      await s.call("GET", `/v1/runs/${runId}/events`, undefined, { "last-event-id": String(last) }),
      { stopWhen: (r) => idsOf(r).length >= 10 },
    );
    const afterSecond = idsOf(second).at(-1) as number;
    await waitForEnd(runId);
    const third = await readSse(
      await s.call("GET", `/v1/runs/${runId}/events`, undefined, {
        "last-event-id": String(afterSecond),
      }),
    );
    const all = [...idsOf(first), ...idsOf(second), ...idsOf(third)];
    expect(all).toEqual(all.map((_, i) => i + 1));
    const whole = await readSse(await s.call("GET", `/v1/runs/${runId}/events`));
    expect(idsOf(whole)).toEqual(all);
    const data = (r: typeof whole) => r.messages.filter((m) => m.id).map((m) => m.data);
    expect([...data(first), ...data(second), ...data(third)]).toEqual(data(whole));
    expect(third.messages.at(-1)?.event).toBe("end");
  });

  it("replays a finished run from the durable log after the server restarted", async () => {
    const { runId, sessionId } = await startRun("stream 20");
    await waitForEnd(runId);
    const before = await readSse(await s.call("GET", `/v1/runs/${runId}/events`));
    await s.server.close();
    await s.restart();
    const run = await json(await s.call("GET", `/v1/runs/${runId}`));
    expect(run).toMatchObject({ id: runId, sessionId, status: "completed" });
    const after = await readSse(
      await s.call("GET", `/v1/runs/${runId}/events`, undefined, { "last-event-id": "7" }),
    );
    expect(after.messages.filter((m) => m.id)).toEqual(
      before.messages.filter((m) => m.id).slice(7),
    );
  });

  it("records a run cut by a shutdown as interrupted, and its stream ends", async () => {
    const { runId } = await startRun("slow 200");
    const reading = readSse(await s.call("GET", `/v1/runs/${runId}/events`));
    await new Promise((r) => setTimeout(r, 200));
    await s.server.close();
    const partial = await reading.catch(() => undefined);
    await s.restart();
    const run = await json(await s.call("GET", `/v1/runs/${runId}`));
    expect(run.status).toBe("interrupted");
    const replay = await readSse(await s.call("GET", `/v1/runs/${runId}/events`));
    expect(replay.messages.at(-1)?.event).toBe("end");
    if (partial) expect(idsOf(replay).slice(0, idsOf(partial).length)).toEqual(idsOf(partial));
  });
});

describe("slow clients", () => {
  it("cuts off a client that never finishes its headers (and one that trickles its body)", async () => {
    await s.close();
    s = await startSocketServer(answerByPrompt, "  requestTimeoutMs: 500");
    const { port } = new URL(s.server.url);
    const cutAfter = async (partial: string): Promise<{ ms: number; text: string }> => {
      const socket = connect(Number(port), "127.0.0.1");
      const started = Date.now();
      let text = "";
      socket.on("data", (chunk) => {
        text += chunk.toString();
      });
      socket.write(partial);
      await new Promise<void>((resolve) => socket.on("close", () => resolve()));
      return { ms: Date.now() - started, text };
    };
    const headers = await cutAfter("GET /health HTTP/1.1\r\nHost: x\r\n");
    expect(headers.ms).toBeLessThan(10_000);
    expect(headers.text).toMatch(/^HTTP\/1\.1 408/);
    const body = await cutAfter(
      `POST /v1/sessions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${s.key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"cwd":`,
    );
    expect(body.ms).toBeLessThan(10_000);
    expect(body.text).toMatch(/408/);
    const list = (await (await s.call("GET", "/v1/sessions")).json()) as { sessions: unknown[] };
    expect(list.sessions).toEqual([]);
  });
});

describe("a run streamed from its POST (Accept: text/event-stream)", () => {
  const streamed = async (sessionId: string, prompt: string) =>
    s.call(
      "POST",
      `/v1/sessions/${sessionId}/runs`,
      { agent: "helper", prompt },
      { accept: "text/event-stream" },
    );
  const newSession = async () =>
    (await json(await s.call("POST", "/v1/sessions", { cwd: "/srv/app" }))).id as string;

  it("answers with the run's events from the first, names the run, and resumes by GET", async () => {
    const sessionId = await newSession();
    const res = await streamed(sessionId, "slow 20");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const runId = /^\/v1\/runs\/(run_\w+)$/.exec(res.headers.get("location") ?? "")?.[1];
    expect(runId).toBeDefined();
    const first = await readSse(res, { stopWhen: (r) => idsOf(r).length >= 8 });
    expect(idsOf(first)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    for (const m of first.messages) expect(JSON.parse(m.data ?? "{}").runId).toBe(runId);
    const rest = await readSse(
      await s.call("GET", `/v1/runs/${runId}/events`, undefined, { "last-event-id": "8" }),
    );
    const all = [...idsOf(first), ...idsOf(rest)];
    expect(all).toEqual(all.map((_, i) => i + 1));
    expect(rest.messages.filter((m) => m.event === "text_delta").length).toBeGreaterThan(0);
    expect(rest.messages.at(-1)?.event).toBe("end");
    expect(JSON.parse(rest.messages.at(-1)?.data ?? "{}").status).toBe("completed");
  });

  it("keeps the run going when the client leaves the stream", async () => {
    const sessionId = await newSession();
    const partial = await readSse(await streamed(sessionId, "slow 30"), {
      stopWhen: (r) => r.messages.filter((m) => m.event === "text_delta").length >= 3,
    });
    const runId = JSON.parse(partial.messages[0]?.data ?? "{}").runId as string;
    expect((await waitForEnd(runId)).status).toBe("completed");
    expect(await lastAnswerText(sessionId)).toBe("s".repeat(30));
  });

  it("answers 429 before starting anything when the key holds its streams, and 404 gives the place back", async () => {
    await s.close();
    s = await startSocketServer(answerByPrompt, "  sseStreamsPerKey: 1");
    const held = await startRun("slow 60");
    const holding = await s.call("GET", `/v1/runs/${held.runId}/events`);
    expect(holding.status).toBe(200);
    const sessionId = await newSession();
    const before = await json(await s.call("GET", `/v1/sessions/${sessionId}`));
    const refused = await streamed(sessionId, "hello");
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ error: { code: "too_many_streams" } });
    // Nothing started: the session is as it was, and a plain POST still runs there.
    expect(await json(await s.call("GET", `/v1/sessions/${sessionId}`))).toEqual(before);
    await holding.body?.cancel();
    await new Promise((r) => setTimeout(r, 200));
    const missing = await streamed("01a00000-0000-7000-8000-000000000000", "hello");
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: "not_found" } });
    const invalid = await s.call(
      "POST",
      `/v1/sessions/${sessionId}/runs`,
      { agent: "helper" },
      { accept: "text/event-stream" },
    );
    expect(invalid.status).toBe(400);
    // Neither refusal kept the one place: a streamed run goes through.
    const ok = await streamed(sessionId, "hello");
    expect(ok.status).toBe(200);
    const reading = await readSse(ok);
    expect(reading.messages.at(-1)?.event).toBe("end");
    expect(JSON.parse(reading.messages.at(-1)?.data ?? "{}").status).toBe("completed");
    await waitForEnd(held.runId);
  });
});

describe("a flood of SSE connections", () => {
  it("holds the per-key limit over real sockets, answers the rest 429, and keeps serving", async () => {
    await s.close();
    s = await startSocketServer(answerByPrompt, "  sseStreamsPerKey: 20");
    const { runId, sessionId } = await startRun("slow 100");
    const attempts = await Promise.all(
      Array.from({ length: 200 }, () => s.call("GET", `/v1/runs/${runId}/events`)),
    );
    const statuses = attempts.map((res) => res.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(20);
    expect(statuses.filter((status) => status === 429)).toHaveLength(180);
    for (const res of attempts.filter((r) => r.status === 429)) {
      expect(await res.json()).toMatchObject({ error: { code: "too_many_streams" } });
    }
    expect((await s.call("GET", `/v1/sessions/${sessionId}`)).status).toBe(200);
    for (const res of attempts.filter((r) => r.status === 200)) await res.body?.cancel();
    await new Promise((r) => setTimeout(r, 300));
    const again = await s.call("GET", `/v1/runs/${runId}/events`);
    expect(again.status).toBe(200);
    await again.body?.cancel();
    expect((await waitForEnd(runId)).status).toBe("completed");
  });
});
