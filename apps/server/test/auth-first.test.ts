import { connect } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FileApiKeyStore } from "../src/index.js";
import { answerByPrompt } from "./helpers/answers.js";
import { type SocketServer, startSocketServer } from "./helpers/socket-server.js";
import { readSse } from "./helpers/sse-client.js";

let s: SocketServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

async function json(res: Response): Promise<Record<string, unknown>> {
  return (await res.json()) as Record<string, unknown>;
}

/** Sends raw bytes on a new connection and collects what comes back until `until` matches. */
function rawExchange(url: string, bytes: string, until: RegExp): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    let seen = "";
    socket.on("data", (chunk) => {
      seen += chunk.toString();
      if (until.test(seen)) {
        socket.destroy();
        resolve(seen);
      }
    });
    socket.on("error", reject);
    socket.on("close", () => resolve(seen));
  });
}

/** The ids of the socket server's tenant and its key. */
async function tenantKey(server: SocketServer): Promise<{ tenantId: string; keyId: string }> {
  const admin = (path: string) =>
    fetch(`${server.server.url}${path}`, {
      headers: { authorization: `Bearer ${server.adminKey}` },
    }).then(json);
  const tenants = (await admin("/v1/admin/tenants")).tenants as Array<{ id: string }>;
  const tenantId = tenants[0]?.id as string;
  const keys = (await admin(`/v1/admin/tenants/${tenantId}/keys`)).keys as Array<{ id: string }>;
  return { tenantId, keyId: keys[0]?.id as string };
}

/** Starts a slow run and opens its event stream, once its first delta arrived. */
async function streamingRun(server: SocketServer) {
  const session = await json(await server.call("POST", "/v1/sessions", { cwd: "/srv/app" }));
  const started = await server.call("POST", `/v1/sessions/${session.id as string}/runs`, {
    agent: "helper",
    prompt: "slow 1500",
  });
  const runId = (await json(started)).runId as string;
  const events = await server.call("GET", `/v1/runs/${runId}/events`);
  let sawDelta: () => void = () => undefined;
  const firstDelta = new Promise<void>((resolve) => {
    sawDelta = resolve;
  });
  const reading = readSse(events, {
    stopWhen: (r) => {
      if (r.messages.some((m) => m.event === "text_delta")) sawDelta();
      return false;
    },
  });
  await firstDelta;
  return { runId, reading };
}

describe("authentication comes first", () => {
  it("answers 401 to a request without a valid key before its body arrives", async () => {
    s = await startSocketServer(answerByPrompt);
    // Headers announcing a large body, and only its first bytes: a server that read the
    // body first would wait for the rest (until its request timeout).
    const answer = await rawExchange(
      s.server.url,
      [
        "POST /v1/sessions HTTP/1.1",
        "Host: x",
        "Authorization: Bearer arb_wrong",
        "Content-Type: application/json",
        "Content-Length: 900000",
        "",
        '{"cwd": "',
      ].join("\r\n"),
      /\r\n\r\n[\s\S]*invalid_key/,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 401/);
    // And a malformed body from someone without a key learns nothing about the body.
    const res = await fetch(`${s.server.url}/v1/sessions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{not json",
    });
    expect(res.status).toBe(401);
  });

  it("throttles failed key attempts per address with 429 and Retry-After", async () => {
    s = await startSocketServer(answerByPrompt, "  authFailuresPerMinute: 5");
    const url = s.server.url;
    const guess = (path: string, key: string) =>
      fetch(`${url}${path}`, { headers: { authorization: `Bearer ${key}` } });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await guess("/v1/sessions", `arb_guess${i}`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401]);
    for (const path of ["/v1/sessions", "/v1/admin/tenants"]) {
      const refused = await guess(path, "arb_another");
      expect(refused.status).toBe(429);
      expect((await json(refused)).error).toMatchObject({ code: "too_many_auth_failures" });
      const wait = Number(refused.headers.get("retry-after"));
      expect(wait).toBeGreaterThanOrEqual(1);
      expect(wait).toBeLessThanOrEqual(60);
    }
    // The admin key guesses count too: the address stays refused.
    expect((await guess("/v1/admin/tenants", s.adminKey)).status).toBe(429);
  });
});

describe("a revoked key's open event streams", () => {
  it("end at once when the key is revoked through this server", async () => {
    s = await startSocketServer(answerByPrompt);
    const { tenantId, keyId } = await tenantKey(s);
    const { reading } = await streamingRun(s);
    const revoked = await fetch(`${s.server.url}/v1/admin/tenants/${tenantId}/keys/${keyId}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${s.adminKey}` },
    });
    expect(revoked.status).toBe(200);
    const seen = await reading;
    expect(seen.messages.some((m) => m.event === "end")).toBe(false);
    expect(seen.messages.filter((m) => m.event === "text_delta").length).toBeLessThan(1500);
    expect(seen.comments.at(-1)).toContain("revoked");
    expect((await s.call("GET", "/v1/sessions")).status).toBe(401);
  }, 60_000);

  it("end at the next key check when another process revokes the key", async () => {
    s = await startSocketServer(answerByPrompt, "  keyCheckMs: 100");
    const { tenantId, keyId } = await tenantKey(s);
    const { reading } = await streamingRun(s);
    const elsewhere = new FileApiKeyStore(join(s.home, "server", "api-keys.json"));
    expect(await elsewhere.revokeKey(tenantId, keyId)).toBe(true);
    const seen = await reading;
    expect(seen.messages.some((m) => m.event === "end")).toBe(false);
    expect(seen.messages.filter((m) => m.event === "text_delta").length).toBeLessThan(1500);
    expect(seen.comments.at(-1)).toContain("revoked");
  }, 60_000);
});
