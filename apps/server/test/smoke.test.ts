import { afterEach, describe, expect, it } from "vitest";
import { makeTestApp, newSession, type TestApp, waitForRun } from "./helpers/test-app.js";

let t: TestApp;
afterEach(() => t?.close());

describe("smoke", () => {
  it("runs a prompt", async () => {
    t = await makeTestApp({ responses: ["Hello there"] });
    const id = await newSession(t);
    const res = await t.call("POST", `/v1/sessions/${id}/runs`, {
      json: { agent: "helper", prompt: "Hi" },
    });
    expect(res.status).toBe(202);
    const { runId } = (await res.json()) as { runId: string };
    const run = await waitForRun(t, runId);
    expect(run.status).toBe("completed");
    const events = await t.call("GET", `/v1/runs/${runId}/events`);
    const text = await events.text();
    expect(text).toContain("event: agent_end");
    expect(text).toContain("event: end");
  });
});
