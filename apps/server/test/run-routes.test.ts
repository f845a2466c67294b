import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { RunService } from "../src/index.js";
import { answerByPrompt } from "./helpers/answers.js";
import { makeTestApp, newSession, type TestApp, waitForRun } from "./helpers/test-app.js";

let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp({ fallback: answerByPrompt, limits: { promptChars: 1000 } });
});
afterEach(() => t.close());

async function json(res: Response): Promise<Record<string, unknown>> {
  return (await res.json()) as Record<string, unknown>;
}

async function startRun(id: string, body: Record<string, unknown>): Promise<Response> {
  return t.call("POST", `/v1/sessions/${id}/runs`, { json: { agent: "helper", ...body } });
}

async function runIdOf(res: Response): Promise<string> {
  expect(res.status).toBe(202);
  return (await json(res)).runId as string;
}

/** Parses an SSE body into its messages. */
function sseMessages(text: string): Array<{ id?: string; event?: string; data?: string }> {
  return text
    .split("\n\n")
    .filter((block) => block.trim() && !block.startsWith(":"))
    .map((block) => {
      const message: { id?: string; event?: string; data?: string } = {};
      for (const line of block.split("\n")) {
        const [field, ...rest] = line.split(": ");
        if (field === "id" || field === "event" || field === "data")
          message[field] = rest.join(": ");
      }
      return message;
    });
}

describe("runs", () => {
  it("answers 202 with the run id, then the run's state and result", async () => {
    const id = await newSession(t);
    const res = await startRun(id, { prompt: "hello" });
    expect(res.headers.get("location")).toMatch(/^\/v1\/runs\/run_[a-f0-9]{24}$/);
    expect(res.status).toBe(202);
    // A run on a free session is recorded running from the start (one write of its record).
    const accepted = await json(res);
    expect(accepted.status).toBe("running");
    const runId = accepted.runId as string;
    const run = await waitForRun(t, runId);
    expect(run.startedAt).toBe(run.createdAt);
    expect(run).toMatchObject({ id: runId, sessionId: id, agent: "helper", status: "completed" });
    expect(run.result).toMatchObject({ success: true, runId });
    expect(run).not.toHaveProperty("tenantId");
    const session = await json(await t.call("GET", `/v1/sessions/${id}`));
    expect(session.messageCount).toBe(2);
  });

  it("never records a run that ends while its record is being read as interrupted", async () => {
    const id = await newSession(t);
    const runId = await runIdOf(await startRun(id, { prompt: "slow 5" }));
    const log = t.deps.log;
    const getRun = log.getRun.bind(log);
    const runs = t.deps.runs as RunService;
    // The read of the record is slow: it returns the record as it was, after the run ended.
    log.getRun = async (asked) => {
      const record = await getRun(asked);
      if (asked === runId && record?.status === "running") {
        while (runs.executesHere(runId)) await new Promise((r) => setTimeout(r, 5));
        log.getRun = getRun;
      }
      return record;
    };
    const seen = await t.call("GET", `/v1/runs/${runId}`);
    expect((await json(seen)).status).toBe("running");
    expect((await waitForRun(t, runId)).status).toBe("completed");
  });

  it("streams every event with increasing ids and ends with the run", async () => {
    const id = await newSession(t);
    const runId = await runIdOf(await startRun(id, { prompt: "stream 30" }));
    const res = await t.call("GET", `/v1/runs/${runId}/events`);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const messages = sseMessages(await res.text());
    const events = messages.filter((m) => m.id !== undefined);
    expect(events.map((m) => Number(m.id))).toEqual(events.map((_, i) => i + 1));
    expect(events.filter((m) => m.event === "text_delta")).toHaveLength(30);
    expect(events.at(-1)?.event).toBe("agent_end");
    const end = messages.at(-1);
    expect(end?.event).toBe("end");
    expect(end?.id).toBeUndefined();
    expect(JSON.parse(end?.data ?? "{}")).toMatchObject({ id: runId, status: "completed" });
  });

  it("replays after Last-Event-ID (header or ?after=) once the run ended", async () => {
    const id = await newSession(t);
    const runId = await runIdOf(await startRun(id, { prompt: "stream 10" }));
    await waitForRun(t, runId);
    const all = sseMessages(await (await t.call("GET", `/v1/runs/${runId}/events`)).text()).filter(
      (m) => m.id,
    );
    const resumed = sseMessages(
      await (
        await t.call("GET", `/v1/runs/${runId}/events`, { headers: { "last-event-id": "5" } })
      ).text(),
    ).filter((m) => m.id);
    expect(resumed.map((m) => m.id)).toEqual(all.slice(5).map((m) => m.id));
    const byQuery = sseMessages(
      await (await t.call("GET", `/v1/runs/${runId}/events?after=5`)).text(),
    ).filter((m) => m.id);
    expect(byQuery).toEqual(resumed);
    const past = sseMessages(
      await (
        await t.call("GET", `/v1/runs/${runId}/events`, { headers: { "last-event-id": "999" } })
      ).text(),
    );
    expect(past.map((m) => m.event)).toEqual(["end"]);
    for (const bad of ["-1", "abc", "1.5", "9".repeat(20)]) {
      const res = await t.call("GET", `/v1/runs/${runId}/events`, {
        headers: { "last-event-id": bad },
      });
      expect(res.status).toBe(400);
      expect((await json(res)).error).toMatchObject({ code: "invalid_request" });
    }
  });

  it("ifBusy reject answers 409 naming the active run", async () => {
    const id = await newSession(t);
    const first = await runIdOf(await startRun(id, { prompt: "slow 40" }));
    const second = await startRun(id, { prompt: "again" });
    expect(second.status).toBe(409);
    const body = await json(second);
    expect(body.error).toMatchObject({ code: "session_busy" });
    expect((body.error as { message: string }).message).toContain(first);
    expect((await json(await t.call("GET", `/v1/sessions/${id}`))).activeRunId).toBe(first);
    // The session's writes are refused while the run holds it.
    const title = await t.call("PUT", `/v1/sessions/${id}/title`, { json: { title: "x" } });
    expect(title.status).toBe(409);
    expect(((await json(title)).error as { message: string }).message).toContain(first);
    expect((await t.call("DELETE", `/v1/sessions/${id}`)).status).toBe(409);
    await t.call("POST", `/v1/runs/${first}/abort`);
    await waitForRun(t, first);
  });

  it("lets one of many simultaneous requests start a run on an idle session; the others get 409", async () => {
    const id = await newSession(t);
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => startRun(id, { prompt: `stream 5 #${i}` })),
    );
    const statuses = answers.map((res) => res.status).sort();
    expect(statuses).toEqual([202, ...Array(11).fill(409)]);
    const started = answers.find((res) => res.status === 202) as Response;
    const run = await waitForRun(t, await runIdOf(started));
    expect(run.status).toBe("completed");
    expect((await json(await t.call("GET", `/v1/sessions/${id}`))).messageCount).toBe(2);
  });

  it("runs simultaneous enqueued requests one after another, none failing", async () => {
    const id = await newSession(t);
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        startRun(id, { prompt: `stream 3 #${i}`, ifBusy: "enqueue" }),
      ),
    );
    const runs = await Promise.all(answers.map(async (res) => waitForRun(t, await runIdOf(res))));
    expect(runs.map((run) => run.status)).toEqual(Array(6).fill("completed"));
    expect((await json(await t.call("GET", `/v1/sessions/${id}`))).messageCount).toBe(12);
  });

  it("refuses a run while the session is being navigated with a summary, and takes it after", async () => {
    const id = await newSession(t);
    // The branch summary's request carries the transcript, so its answer streams slowly too.
    await waitForRun(t, await runIdOf(await startRun(id, { prompt: "slow 40" })));
    const navigating = t.call("POST", `/v1/sessions/${id}/navigate`, {
      json: { entryId: null, summarize: true },
    });
    await new Promise((r) => setTimeout(r, 150));
    for (const ifBusy of ["reject", "enqueue", "interrupt"]) {
      const refused = await startRun(id, { prompt: "meanwhile", ifBusy });
      expect(refused.status).toBe(409);
      expect((await json(refused)).error).toEqual({
        code: "session_busy",
        message: expect.stringContaining("navigate"),
      });
    }
    const compact = await t.call("POST", `/v1/sessions/${id}/compact`, { json: {} });
    expect(compact.status).toBe(409);
    const moved = await navigating;
    expect(moved.status).toBe(200);
    expect((await json(moved)).summaryEntryId).toEqual(expect.any(String));
    expect(
      (await waitForRun(t, await runIdOf(await startRun(id, { prompt: "after" })))).status,
    ).toBe("completed");
  });

  it("ifBusy enqueue starts the second run when the first ends", async () => {
    const id = await newSession(t);
    const first = await runIdOf(await startRun(id, { prompt: "slow 10" }));
    const secondRes = await startRun(id, { prompt: "second prompt", ifBusy: "enqueue" });
    const second = await runIdOf(secondRes);
    expect((await json(await t.call("GET", `/v1/runs/${second}`))).status).toBe("queued");
    expect((await waitForRun(t, first)).status).toBe("completed");
    expect((await waitForRun(t, second)).status).toBe("completed");
    const context = await json(await t.call("GET", `/v1/sessions/${id}/context`));
    expect((context.messages as unknown[]).length).toBe(4);
  });

  it("ifBusy interrupt aborts the first and runs the second", async () => {
    const id = await newSession(t);
    const first = await runIdOf(await startRun(id, { prompt: "slow 200" }));
    await new Promise((r) => setTimeout(r, 100));
    const second = await runIdOf(
      await startRun(id, { prompt: "second prompt", ifBusy: "interrupt" }),
    );
    expect((await waitForRun(t, first)).status).toBe("aborted");
    expect((await waitForRun(t, second)).status).toBe("completed");
  });

  it("stop finishes gracefully; abort ends at once keeping the partial answer", async () => {
    const id = await newSession(t);
    const stopped = await runIdOf(await startRun(id, { prompt: "slow 100" }));
    await new Promise((r) => setTimeout(r, 100));
    const stopRes = await t.call("POST", `/v1/runs/${stopped}/stop`);
    expect(stopRes.status).toBe(202);
    const stoppedRun = await waitForRun(t, stopped);
    // Graceful: the answer being streamed is finished (no further turn), not cut.
    expect(stoppedRun.status).toBe("completed");
    expect(stoppedRun.result).toMatchObject({ success: true, turns: 1 });

    const aborted = await runIdOf(await startRun(id, { prompt: "slow 200" }));
    await new Promise((r) => setTimeout(r, 150));
    expect((await t.call("POST", `/v1/runs/${aborted}/abort`)).status).toBe(202);
    const run = await waitForRun(t, aborted);
    expect(run.status).toBe("aborted");
    const tree = await json(await t.call("GET", `/v1/sessions/${id}/tree`));
    const partial = (
      tree.nodes as Array<{ entry: { type: string; message?: { stopReason?: string } } }>
    ).filter((n) => n.entry.message?.stopReason === "aborted");
    expect(partial.length).toBeGreaterThanOrEqual(1);
  });

  it("stop or abort of a queued run cancels it; of an ended run changes nothing", async () => {
    const id = await newSession(t);
    const first = await runIdOf(await startRun(id, { prompt: "slow 20" }));
    const queued = await runIdOf(await startRun(id, { prompt: "later", ifBusy: "enqueue" }));
    const cancelled = await json(await t.call("POST", `/v1/runs/${queued}/abort`));
    expect(cancelled).toMatchObject({ status: "cancelled", error: { code: "cancelled" } });
    const done = await waitForRun(t, first);
    const again = await json(await t.call("POST", `/v1/runs/${first}/stop`));
    expect(again.status).toBe(done.status);
    const events = await (await t.call("GET", `/v1/runs/${queued}/events`)).text();
    expect(sseMessages(events).map((m) => m.event)).toEqual(["end"]);
  });

  it("refuses an unknown agent, a long prompt, a bad body and a missing session", async () => {
    const id = await newSession(t);
    const agent = await startRun(id, { agent: "ghost", prompt: "x" });
    expect(agent.status).toBe(404);
    expect(((await json(agent)).error as { message: string }).message).toContain("helper, second");
    const long = await startRun(id, { prompt: "x".repeat(1001) });
    expect(long.status).toBe(400);
    expect((await json(long)).error).toMatchObject({ code: "prompt_too_long" });
    for (const body of [
      { prompt: "" },
      { prompt: 5 },
      { prompt: "x", ifBusy: "maybe" },
      { prompt: "x", extra: 1 },
    ]) {
      const res = await startRun(id, body);
      expect(res.status).toBe(400);
      expect((await json(res)).error).toMatchObject({
        code: "invalid_request",
        message: expect.stringMatching(/^body\./),
      });
    }
    const image = await startRun(id, {
      prompt: "x",
      images: [{ data: "not base64!", mimeType: "image/png" }],
    });
    expect(image.status).toBe(400);
    const missing = await t.call("POST", "/v1/sessions/0000-missing/runs", {
      json: { agent: "helper", prompt: "x" },
    });
    expect(missing.status).toBe(404);
    expect((await json(missing)).error).toMatchObject({ code: "not_found" });
    const noRun = await t.call("GET", `/v1/runs/run_${"0".repeat(24)}`);
    expect(noRun.status).toBe(404);
    expect((await json(noRun)).error).toMatchObject({ code: "run_not_found" });
    const list = await json(await t.call("GET", `/v1/sessions/${id}`));
    expect(list.messageCount).toBe(0);
  });

  it("sends images with the prompt", async () => {
    const id = await newSession(t);
    const png = Buffer.from("fake png bytes").toString("base64");
    const runId = await runIdOf(
      await startRun(id, { prompt: "look", images: [{ data: png, mimeType: "image/png" }] }),
    );
    expect((await waitForRun(t, runId)).status).toBe("completed");
    const request = t.fake.requests.at(-1)?.body as { messages: Array<{ content: unknown }> };
    expect(JSON.stringify(request.messages)).toContain(png);
  });
});
