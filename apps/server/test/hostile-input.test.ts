import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { MemorySessionStore } from "@arbor/session-store";
import { afterEach, describe, expect, it } from "vitest";
import { answerByPrompt } from "./helpers/answers.js";
import { makeTestApp, newSession, type TestApp } from "./helpers/test-app.js";

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function json(res: Response): Promise<Record<string, unknown>> {
  return (await res.json()) as Record<string, unknown>;
}

/** Every file under a folder, with its size: what "nothing stored changed" compares. */
async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string) => {
    for (const entry of await readdir(d, { withFileTypes: true }).catch(() => [])) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) await walk(path);
      else out.push(path);
    }
  };
  await walk(dir);
  return out.sort();
}

async function storedState(app: TestApp, id?: string): Promise<string> {
  const list = await json(await app.call("GET", "/v1/sessions?limit=200"));
  const entries = id
    ? await json(await app.call("GET", `/v1/sessions/${id}/entries?limit=1000`))
    : {};
  return JSON.stringify({ list, entries });
}

describe("hostile bodies", () => {
  it("refuses malformed JSON, wrong content types, deep JSON and oversized bodies, storing nothing", async () => {
    t = await makeTestApp({ fallback: answerByPrompt, limits: { bodyBytes: 4096, jsonDepth: 16 } });
    const app = t;
    const id = await newSession(app);
    const before = await storedState(app, id);
    const cases: Array<{ body: string; type?: string; status: number; code: string }> = [
      { body: '{"cwd":', type: "application/json", status: 400, code: "invalid_json" },
      { body: "nul", type: "application/json", status: 400, code: "invalid_json" },
      { body: '{"cwd":"/a"}}', type: "application/json", status: 400, code: "invalid_json" },
      { body: "\u0000{}", type: "application/json", status: 400, code: "invalid_json" },
      { body: '{"cwd":"/a"}', type: "text/plain", status: 415, code: "unsupported_media_type" },
      {
        body: "cwd=/a",
        type: "application/x-www-form-urlencoded",
        status: 415,
        code: "unsupported_media_type",
      },
      { body: '{"cwd":"/a"}', status: 415, code: "unsupported_media_type" },
      {
        body: `${"[".repeat(100_000)}${"]".repeat(100_000)}`,
        type: "application/json",
        status: 413,
        code: "body_too_large",
      },
      {
        body: `{"a":${"[".repeat(17)}${"]".repeat(17)}}`,
        type: "application/json",
        status: 400,
        code: "json_too_deep",
      },
      {
        body: `{"cwd":"${"x".repeat(5000)}"}`,
        type: "application/json",
        status: 413,
        code: "body_too_large",
      },
      { body: "stream", type: "application/json", status: 413, code: "body_too_large" },
    ];
    for (const [index, c] of cases.entries()) {
      for (const path of ["/v1/sessions", `/v1/sessions/${id}/runs`, `/v1/sessions/${id}/title`]) {
        const method = path.endsWith("title") ? "PUT" : "POST";
        // "stream": a body sent in chunks without a length, over the limit only as it arrives.
        const streamed = c.body === "stream";
        const headers: Record<string, string> = { authorization: `Bearer ${app.alice.key}` };
        if (c.type) headers["content-type"] = c.type;
        const res = await app.app.request(path, {
          method,
          headers,
          body: streamed ? streamOf(10, 1000) : c.body,
          ...(streamed ? { duplex: "half" } : {}),
        } as RequestInit);
        const text = await res.text();
        expect({ index, path, status: res.status }).toEqual({ index, path, status: c.status });
        expect(JSON.parse(text)).toEqual({ error: { code: c.code, message: expect.any(String) } });
        expect(text).not.toMatch(/at .*\.(ts|js):\d+/);
      }
    }
    expect(await storedState(app, id)).toBe(before);
    // Brackets inside strings are text, not nesting.
    const fine = await app.call("POST", `/v1/sessions/${id}/runs`, {
      json: { agent: "helper", prompt: "[".repeat(100) },
      headers: { "content-type": "application/json; charset=utf-8" },
    });
    expect(fine.status).toBe(202);
    await app.deps.runs.close();
  });

  it("refuses ids with ../, NUL, separators and other characters without touching the disk", async () => {
    t = await makeTestApp({ files: true });
    const app = t;
    const id = await newSession(app);
    const root = (app.deps.store as unknown as { options: { root: string } }).options.root;
    const before = await filesUnder(join(root, ".."));
    const bad = [
      "..%2F..%2Fetc%2Fpasswd",
      "..",
      "%2E%2E",
      `${id}%00`,
      "%00",
      `..%5C${id}`,
      "a%0d%0aSet-Cookie:%20x=1",
      "x".repeat(300),
      `${id}.jsonl`,
      "%2F",
    ];
    for (const segment of bad) {
      for (const [method, path] of [
        ["GET", `/v1/sessions/${segment}`],
        ["DELETE", `/v1/sessions/${segment}`],
        ["GET", `/v1/sessions/${segment}/export`],
        ["POST", `/v1/sessions/${segment}/runs`],
        ["GET", `/v1/runs/${segment}`],
        ["GET", `/v1/runs/${segment}/events`],
        ["PUT", `/v1/sessions/${id}/entries/${segment}/label`],
      ] as const) {
        const res = await app.call(method, path, {
          json:
            method === "GET" || method === "DELETE"
              ? undefined
              : { agent: "helper", prompt: "x", label: "x" },
        });
        expect([400, 404]).toContain(res.status);
        const body = await json(res);
        expect(body.error).toEqual({ code: expect.any(String), message: expect.any(String) });
        expect(res.headers.get("set-cookie")).toBeNull();
      }
    }
    expect(await filesUnder(join(root, ".."))).toEqual(before);
  });

  it("takes an empty JSON body as {}: optional bodies pass, required fields are named", async () => {
    t = await makeTestApp();
    const headers = { "content-type": "application/json" };
    const created = await t.call("POST", "/v1/sessions", { headers, body: "" });
    expect(created.status).toBe(201);
    const id = ((await json(created)) as { id: string }).id;
    const run = await t.call("POST", `/v1/sessions/${id}/runs`, { headers, body: "" });
    expect(run.status).toBe(400);
    expect((await json(run)).error).toEqual({
      code: "invalid_request",
      message: expect.stringMatching(/^body\.agent: /),
    });
    const noType = await t.call("POST", `/v1/sessions/${id}/runs`, { body: "" });
    expect(noType.status).toBe(400);
    expect((await json(noType)).error).toMatchObject({ code: "invalid_request" });
  });

  it("keeps a title with line breaks out of the headers of the export", async () => {
    t = await makeTestApp();
    const id = await newSession(t);
    await t.call("PUT", `/v1/sessions/${id}/title`, {
      json: { title: 'x"\r\nSet-Cookie: a=1\r\n\r\n<script>' },
    });
    const res = await t.call("GET", `/v1/sessions/${id}/export`);
    expect(res.status).toBe(200);
    expect(res.headers.get("set-cookie")).toBeNull();
    expect(res.headers.get("content-disposition")).toBe(`inline; filename="session-${id}.html"`);
    expect(await res.text()).not.toContain("<script>\n");
  });
});

function streamOf(chunks: number, size: number): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (let i = 0; i < chunks; i++)
        controller.enqueue(new TextEncoder().encode("y".repeat(size)));
      controller.close();
    },
  });
}

describe("limits", () => {
  it("limits requests per key per minute, per key", async () => {
    t = await makeTestApp({ limits: { requestsPerMinute: 5 } });
    for (let i = 0; i < 5; i++) expect((await t.call("GET", "/v1/sessions")).status).toBe(200);
    const res = await t.call("GET", "/v1/sessions");
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await json(res)).error).toMatchObject({ code: "rate_limited" });
    expect((await t.call("GET", "/v1/sessions", { key: t.bob.key })).status).toBe(200);
  });

  it("limits open SSE streams per key, and frees a slot when a stream closes", async () => {
    t = await makeTestApp({ fallback: answerByPrompt, limits: { sseStreamsPerKey: 3 } });
    const app = t;
    const id = await newSession(app);
    const started = await app.call("POST", `/v1/sessions/${id}/runs`, {
      json: { agent: "helper", prompt: "slow 300" },
    });
    const { runId } = (await json(started)) as { runId: string };
    const open: Response[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await app.call("GET", `/v1/runs/${runId}/events`);
      expect(res.status).toBe(200);
      open.push(res);
    }
    const flood = await Promise.all(
      Array.from({ length: 50 }, () => app.call("GET", `/v1/runs/${runId}/events`)),
    );
    for (const res of flood) {
      expect(res.status).toBe(429);
      expect((await json(res)).error).toMatchObject({ code: "too_many_streams" });
    }
    await open[0]?.body?.cancel();
    await new Promise((r) => setTimeout(r, 50));
    const again = await app.call("GET", `/v1/runs/${runId}/events`);
    expect(again.status).toBe(200);
    await again.body?.cancel();
    for (const res of open.slice(1)) await res.body?.cancel();
    await app.call("POST", `/v1/runs/${runId}/abort`);
  });

  it("times out a slow request with 408 and never shows an internal error's detail", async () => {
    const store = new MemorySessionStore();
    const slowStore = Object.create(store) as MemorySessionStore;
    slowStore.list = async () => {
      await new Promise((r) => setTimeout(r, 1000));
      return { sessions: [], nextCursor: undefined };
    };
    t = await makeTestApp({ store: slowStore, limits: { requestTimeoutMs: 100 } });
    const slow = await t.call("GET", "/v1/sessions");
    expect(slow.status).toBe(408);
    expect((await json(slow)).error).toMatchObject({ code: "request_timeout" });
    slowStore.list = async () => {
      throw new Error("password=hunter2 at /var/lib/secret");
    };
    const failed = await t.call("GET", "/v1/sessions");
    expect(failed.status).toBe(500);
    const text = await failed.text();
    expect(JSON.parse(text)).toEqual({
      error: {
        code: "internal_error",
        message: "the server failed to answer; the failure was logged",
      },
    });
    expect(text).not.toContain("hunter2");
  });

  it("sends no CORS headers unless origins are configured", async () => {
    t = await makeTestApp();
    const res = await t.call("GET", "/v1/sessions", {
      headers: { origin: "https://evil.example" },
    });
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    t.deps.corsOrigins = ["https://app.example"];
    const { createApp } = await import("../src/index.js");
    const app = createApp(t.deps);
    const allowed = await app.request("/v1/sessions", {
      method: "OPTIONS",
      headers: { origin: "https://app.example", "access-control-request-method": "GET" },
    });
    expect(allowed.headers.get("access-control-allow-origin")).toBe("https://app.example");
    const other = await app.request("/v1/sessions", {
      method: "OPTIONS",
      headers: { origin: "https://evil.example", "access-control-request-method": "GET" },
    });
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
  });
});
