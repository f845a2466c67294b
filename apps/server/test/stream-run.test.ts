import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  createArborClient,
  type ServerRunEvent,
  type StreamRunError,
  type StreamRunItem,
} from "../src/index.js";
import { FileRunEventLog } from "../src/runs/file-run-event-log.js";
import { answerByPrompt } from "./helpers/answers.js";
import { type CuttingProxy, startCuttingProxy } from "./helpers/cutting-proxy.js";
import {
  answerWith,
  type ScriptedSseServer,
  startScriptedSseServer,
} from "./helpers/scripted-sse-server.js";
import { type SocketServer, startSocketServer } from "./helpers/socket-server.js";

let s: SocketServer;
beforeAll(async () => {
  s = await startSocketServer(answerByPrompt);
});
afterAll(() => s.close());

async function startRun(prompt: string): Promise<string> {
  const session = (await (await s.call("POST", "/v1/sessions", { cwd: "/srv/app" })).json()) as {
    id: string;
  };
  const res = await s.call("POST", `/v1/sessions/${session.id}/runs`, { agent: "helper", prompt });
  expect(res.status).toBe(202);
  return ((await res.json()) as { runId: string }).runId;
}

/** The events the server's durable log holds for a run (read once the run ended). */
async function loggedEvents(runId: string): Promise<ServerRunEvent[]> {
  const log = new FileRunEventLog(join(s.home, "server", "runs"));
  try {
    return await log.readEvents(runId, 0, 100_000);
  } finally {
    await log.close();
  }
}

async function collect(items: AsyncIterable<StreamRunItem>): Promise<StreamRunItem[]> {
  const all: StreamRunItem[] = [];
  for await (const item of items) all.push(item);
  return all;
}

/** What iterating threw (fails the test when it ended without throwing). */
async function failure(items: AsyncIterable<StreamRunItem>): Promise<StreamRunError> {
  try {
    await collect(items);
  } catch (error) {
    return error as StreamRunError;
  }
  throw new Error("the stream ended without an error");
}

const eventsOf = (items: StreamRunItem[]) =>
  items.flatMap((item) => (item.kind === "event" ? [item.event] : []));

describe("streamRun against arbor-server", () => {
  let proxy: CuttingProxy | undefined;
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
  });

  it("reads a whole run as the log holds it, and gives the run from `end`", async () => {
    const runId = await startRun("slow 20");
    const client = createArborClient(s.server.url, s.key);
    const stream = client.streamRun(runId);
    const items = await collect(stream);
    const run = await stream.result;
    expect(run).toMatchObject({ id: runId, status: "completed" });
    expect(eventsOf(items)).toEqual(await loggedEvents(runId));
    // The README's example narrows items the same way.
    let text = "";
    for (const item of items) {
      if (item.kind === "event" && item.event.type === "text_delta") text += item.event.delta;
    }
    expect(text).toBe("s".repeat(20));
    expect(run.lastSeq).toBe(items.length);
  });

  it("starts after `afterSeq`", async () => {
    const runId = await startRun("stream 10");
    const client = createArborClient(s.server.url, s.key);
    const all = await collect(client.streamRun(runId));
    const rest = await collect(client.streamRun(runId, { afterSeq: 5 }));
    expect(eventsOf(rest)).toEqual(eventsOf(all).slice(5));
  });

  it("resumes with Last-Event-ID after connections cut mid-stream, with no duplicate or gap", async () => {
    const runId = await startRun("slow 40");
    // Cut the first answer after 1500 bytes and the second after 2500: both mid-message.
    proxy = await startCuttingProxy(s.server.url, [1500, 2500]);
    const client = createArborClient(proxy.url, s.key);
    const stream = client.streamRun(runId, { retryDelayMs: 0 });
    const items = await collect(stream);
    expect((await stream.result).status).toBe("completed");
    const events = eventsOf(items);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events).toEqual(await loggedEvents(runId));
    const cut = proxy.connections.filter((c) => c.cut);
    expect(cut).toHaveLength(2);
    const resumedFrom = proxy.connections
      .slice(1)
      .map((c) => Number(/^last-event-id: (\d+)\r$/im.exec(c.request)?.[1]));
    expect(resumedFrom).toHaveLength(2);
    expect(resumedFrom[0]).toBeGreaterThan(0);
    expect(resumedFrom[1]).toBeGreaterThan(resumedFrom[0] as number);
    expect(proxy.connections[0]?.request).not.toMatch(/last-event-id/i);
  });

  it("gives up with connection_lost after its retries when every connection is cut", async () => {
    const runId = await startRun("stream 5");
    proxy = await startCuttingProxy(s.server.url, [10, 10, 10, 10]);
    const client = createArborClient(proxy.url, s.key);
    const stream = client.streamRun(runId, { retries: 3, retryDelayMs: 0 });
    const error = await failure(stream);
    expect(error).toMatchObject({ name: "StreamRunError", code: "connection_lost" });
    expect(proxy.connections).toHaveLength(4);
    await expect(stream.result).rejects.toBe(error);
  });

  it("answers a missing run and a bad key with typed http errors", async () => {
    const missing = await failure(
      createArborClient(s.server.url, s.key).streamRun(`run_${"0".repeat(24)}`),
    );
    expect(missing).toMatchObject({ code: "http_error", status: 404 });
    expect(missing.details.serverCode).toBe("run_not_found");
    const runId = await startRun("hello");
    const denied = await failure(createArborClient(s.server.url, "arb_wrong").streamRun(runId));
    expect(denied).toMatchObject({ code: "http_error", status: 401 });
    expect(denied.message).toMatch(/401/);
  });

  it("ends with `aborted` when the signal aborts, and `result` says the stream was left", async () => {
    const runId = await startRun("slow 40");
    const controller = new AbortController();
    const stream = createArborClient(s.server.url, s.key).streamRun(runId, {
      signal: controller.signal,
    });
    const seen: number[] = [];
    const error = await (async () => {
      try {
        for await (const item of stream) {
          if (item.kind === "event") seen.push(item.event.seq);
          if (seen.length === 3) controller.abort(new Error("enough"));
        }
      } catch (e) {
        return e as StreamRunError;
      }
    })();
    expect(error).toMatchObject({ code: "aborted" });
    expect(seen).toEqual([1, 2, 3]);
    await expect(stream.result).rejects.toMatchObject({ code: "aborted" });
    const broken = createArborClient(s.server.url, s.key).streamRun(runId);
    for await (const _ of broken) break;
    await expect(broken.result).rejects.toMatchObject({ code: "stream_closed" });
  });
});

const RUN = `run_${"a".repeat(24)}`;
const handoff = (seq: number) =>
  JSON.stringify({ type: "handoff", runId: RUN, seq, role: "handoff", from: "a", to: "b" });
const message = (seq: number) => `id: ${seq}\nevent: handoff\ndata: ${handoff(seq)}\n\n`;
const endMessage = `event: end\ndata: ${JSON.stringify({
  id: RUN,
  sessionId: "s1",
  agent: "helper",
  status: "completed",
  createdAt: "2026-01-01T00:00:00.000Z",
  lastSeq: 3,
})}\n\n`;
const sse = (body: string) => answerWith(200, "text/event-stream", body);

describe("streamRun against hostile or odd servers", () => {
  let fake: ScriptedSseServer | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });
  const streamOf = (url: string, options = {}) =>
    createArborClient(url, "k").streamRun(RUN, { retryDelayMs: 0, ...options });

  it("ends with invalid_event naming the seq of a data line that is not JSON", async () => {
    fake = await startScriptedSseServer([
      sse(`${message(1)}id: 2\nevent: handoff\ndata: {"type":"handoff",\n\n${message(3)}`),
    ]);
    const stream = streamOf(fake.url);
    const seen: number[] = [];
    const error = await failure({
      async *[Symbol.asyncIterator]() {
        for await (const item of stream) {
          if (item.kind === "event") seen.push(item.event.seq);
          yield item;
        }
      },
    });
    expect(error).toMatchObject({ name: "StreamRunError", code: "invalid_event", seq: 2 });
    expect(error.message).toMatch(/event 2 .* not JSON/);
    expect(seen).toEqual([1]);
  });

  it("ends with invalid_event for JSON that is not a run event", async () => {
    fake = await startScriptedSseServer([
      sse(`${message(1)}id: 2\nevent: handoff\ndata: {"type":"handoff","seq":2}\n\n`),
    ]);
    const error = await failure(streamOf(fake.url));
    expect(error).toMatchObject({ code: "invalid_event", seq: 2 });
    expect(error.message).toMatch(/not a run event/);
  });

  it("stops reading a line over its limit and drops the connection", async () => {
    fake = await startScriptedSseServer([
      (_req, res) => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write("data: ");
        // An endless line: the client must give up, not buffer it.
        const more = () => {
          while (!res.destroyed && res.write("x".repeat(16 * 1024))) {}
          if (!res.destroyed) res.once("drain", more);
        };
        more();
      },
    ]);
    const error = await failure(streamOf(fake.url, { maxLineChars: 256 * 1024 }));
    expect(error).toMatchObject({ code: "sse_too_large" });
    await fake.closed(0);
    expect(fake.lastEventIds).toHaveLength(1);
  });

  it("refuses a 200 that is not an event stream, and a JSON error body", async () => {
    fake = await startScriptedSseServer([answerWith(200, "application/json", '{"ok":true}')]);
    expect(await failure(streamOf(fake.url))).toMatchObject({
      code: "not_event_stream",
      status: 200,
    });
    await fake.close();
    fake = await startScriptedSseServer([
      answerWith(404, "application/json", '{"error":{"code":"not_found","message":"no such run"}}'),
    ]);
    const error = await failure(streamOf(fake.url));
    expect(error).toMatchObject({ code: "http_error", status: 404 });
    expect(error.details.serverCode).toBe("not_found");
    expect(error.message).toMatch(/404 not_found: no such run/);
  });

  it("reconnects after a clean close without `end`, skipping an event sent again", async () => {
    fake = await startScriptedSseServer([
      sse(message(1) + message(2)),
      sse(message(2) + message(3) + endMessage),
    ]);
    const stream = streamOf(fake.url);
    const items = await collect(stream);
    expect(eventsOf(items).map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(fake.lastEventIds).toEqual([undefined, "2"]);
    expect((await stream.result).lastSeq).toBe(3);
  });

  it("drops a message cut off by a reset and reads it whole after reconnecting", async () => {
    fake = await startScriptedSseServer([
      (_req, res) => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(message(1) + message(2).slice(0, 30), () => res.socket?.resetAndDestroy());
      },
      sse(message(2) + message(3) + endMessage),
    ]);
    const items = await collect(streamOf(fake.url));
    expect(eventsOf(items).map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(fake.lastEventIds).toEqual([undefined, "1"]);
  });

  it("yields a resync item and goes on from the events still kept", async () => {
    const resync = JSON.stringify({
      run: JSON.parse(endMessage.slice("event: end\ndata: ".length)),
      missedFrom: 2,
      missedThrough: 4,
    });
    fake = await startScriptedSseServer([
      sse(`${message(1)}event: resync\ndata: ${resync}\n\n${message(5)}${endMessage}`),
    ]);
    const items = await collect(streamOf(fake.url));
    expect(items.map((i) => (i.kind === "event" ? i.event.seq : i.kind))).toEqual([1, "resync", 5]);
    expect(items[1]).toMatchObject({ kind: "resync", missedFrom: 2, missedThrough: 4 });
  });

  it("ends with sequence_gap when an event is skipped without a resync", async () => {
    fake = await startScriptedSseServer([sse(message(1) + message(3) + endMessage)]);
    expect(await failure(streamOf(fake.url))).toMatchObject({ code: "sequence_gap", seq: 3 });
  });
});
