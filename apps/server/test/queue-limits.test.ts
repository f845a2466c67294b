import { afterEach, describe, expect, it } from "vitest";
import { answerByPrompt } from "./helpers/answers.js";
import { makeTestApp, newSession, type TestApp } from "./helpers/test-app.js";

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function start(app: TestApp, sessionId: string, prompt: string, key = app.alice.key) {
  return app.call("POST", `/v1/sessions/${sessionId}/runs`, {
    key,
    json: { agent: "helper", prompt, ifBusy: "enqueue" },
  });
}

describe("queued runs", () => {
  it("are capped per session and per tenant with 429 queue_full; other tenants are not affected", async () => {
    t = await makeTestApp({
      fallback: answerByPrompt,
      limits: { queuedRunsPerSession: 3, queuedRunsPerTenant: 4 },
    });
    const first = await newSession(t);
    const running = await start(t, first, "slow 200");
    expect(running.status).toBe(202);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await start(t, first, `queued ${i}`)).status);
    expect(statuses).toEqual([202, 202, 202]);
    const refused = await start(t, first, "one too many");
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("queue_full");

    // The tenant's fourth queued run fits in another session; the fifth does not.
    const second = await newSession(t);
    expect((await start(t, second, "slow 200")).status).toBe(202);
    expect((await start(t, second, "fourth")).status).toBe(202);
    const overTenant = await start(t, second, "fifth");
    expect(overTenant.status).toBe(429);
    expect(((await overTenant.json()) as { error: { message: string } }).error.message).toContain(
      "queuedRunsPerTenant",
    );

    // Another tenant queues as usual.
    const bobs = await newSession(t, t.bob.key);
    expect((await start(t, bobs, "slow 200", t.bob.key)).status).toBe(202);
    expect((await start(t, bobs, "bob queued", t.bob.key)).status).toBe(202);
  }, 60_000);
});
