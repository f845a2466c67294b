import { connect } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { answerByPrompt } from "./helpers/answers.js";
import { type SocketServer, startSocketServer } from "./helpers/socket-server.js";

// The body is read from the socket's request itself on Node (not through a web Request), so
// its limits are tried here over real sockets; `hostile-input.test.ts` tries the same cases
// through `app.request()`.
let s: SocketServer;
beforeEach(async () => {
  s = await startSocketServer(answerByPrompt, "  bodyBytes: 2048");
});
afterEach(() => s.close());

/** Sends raw bytes, then reads until the server closes or `quietMs` pass without data. */
async function raw(bytes: string, options: { end?: boolean; quietMs?: number } = {}) {
  const { port } = new URL(s.server.url);
  const socket = connect(Number(port), "127.0.0.1");
  let text = "";
  socket.on("data", (chunk) => {
    text += chunk.toString();
  });
  socket.write(bytes);
  if (options.end) socket.end();
  await new Promise<void>((resolve) => {
    let timer = setTimeout(resolve, options.quietMs ?? 2000);
    socket.on("data", () => {
      clearTimeout(timer);
      timer = setTimeout(resolve, 100);
    });
    socket.on("close", () => {
      clearTimeout(timer);
      resolve();
    });
  });
  socket.destroy();
  return text;
}

const head = (key: string, extra: string) =>
  `POST /v1/sessions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n${extra}\r\n`;

async function sessionCount(): Promise<number> {
  const res = await s.call("GET", "/v1/sessions");
  return ((await res.json()) as { sessions: unknown[] }).sessions.length;
}

describe("request bodies over a real socket", () => {
  it("takes a body of exactly the limit, and refuses one byte more by its Content-Length without reading it", async () => {
    const exact = JSON.stringify({ cwd: `/${"a".repeat(2048 - 11)}` });
    expect(Buffer.byteLength(exact)).toBe(2048);
    const ok = await s.call("POST", "/v1/sessions", JSON.parse(exact));
    expect(ok.status).toBe(201);
    // Declared one byte over: answered before a byte of the body is sent.
    const text = await raw(head(s.key, "Content-Length: 2049\r\n"), { quietMs: 3000 });
    expect(text).toMatch(/^HTTP\/1\.1 413/);
    expect(text).toContain('"code":"body_too_large"');
    expect(await sessionCount()).toBe(1);
  });

  it("refuses a chunked body once the bytes that came are over the limit", async () => {
    const chunk = `{"cwd":"/${"b".repeat(1500)}`;
    const size = Buffer.byteLength(chunk).toString(16);
    const text = await raw(
      `${head(s.key, "Transfer-Encoding: chunked\r\n")}${size}\r\n${chunk}\r\n${size}\r\n${chunk}\r\n`,
    );
    expect(text).toMatch(/^HTTP\/1\.1 413/);
    expect(text).toContain('"code":"body_too_large"');
    expect(await sessionCount()).toBe(0);
  });

  it("stores nothing when the client leaves mid-body, and keeps serving", async () => {
    await raw(`${head(s.key, "Content-Length: 100\r\n")}{"cwd":"/half`, { end: true });
    const after = await s.call("POST", "/v1/sessions", { cwd: "/whole" });
    expect(after.status).toBe(201);
    expect(await sessionCount()).toBe(1);
  });

  it("reads a body sent in many small pieces", async () => {
    const body = JSON.stringify({ cwd: "/pieces", title: "x".repeat(300) });
    const { port } = new URL(s.server.url);
    const socket = connect(Number(port), "127.0.0.1");
    let text = "";
    socket.on("data", (chunk) => {
      text += chunk.toString();
    });
    socket.write(`${head(s.key, `Content-Length: ${Buffer.byteLength(body)}\r\n`)}`);
    for (let at = 0; at < body.length; at += 40) {
      socket.write(body.slice(at, at + 40));
      await new Promise((r) => setTimeout(r, 2));
    }
    while (!text.includes("\r\n\r\n{")) await new Promise((r) => setTimeout(r, 10));
    socket.destroy();
    expect(text).toMatch(/^HTTP\/1\.1 201/);
    const list = (await (await s.call("GET", "/v1/sessions")).json()) as {
      sessions: Array<{ title?: string }>;
    };
    expect(list.sessions[0]?.title).toBe("x".repeat(300));
  });
});
