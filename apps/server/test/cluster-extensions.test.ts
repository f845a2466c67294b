import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerByPrompt } from "./helpers/answers.js";
import { TEST_EXTENSIONS } from "./helpers/extension-server.js";
import { failUnderCi } from "./helpers/pg-cluster.js";
import { clusterUnavailable, ServerCluster } from "./helpers/server-cluster.js";
import { readSse } from "./helpers/sse-client.js";

failUnderCi(clusterUnavailable, "the cluster tests");

let c: ServerCluster;
beforeAll(async () => {
  if (clusterUnavailable) return;
  c = await ServerCluster.start({
    instances: 2,
    fallback: answerByPrompt,
    // Not a failover test: a long lease, so a loaded machine never expires one.
    leaseTtlMs: 15_000,
    agents: [
      "  - name: asker",
      "    models: [fake/fake-model]",
      "    systemPrompt: You ask.",
      "    extensions:",
      `      - ${join(TEST_EXTENSIONS, "asks-everything.ts")}`,
    ].join("\n"),
  });
}, 90_000);
afterAll(async () => {
  await c?.close();
}, 60_000);

describe.skipIf(clusterUnavailable !== undefined)("extension UI across instances", () => {
  it("a UI request of a run on A is answered through B: the answer reaches A, B gives A's verdict", async () => {
    const sessionId = await c.newSession(0);
    const started = await c.call(0, "POST", `/v1/sessions/${sessionId}/commands/ask`, {
      agent: "asker",
    });
    expect(started.status).toBe(202);
    const { runId } = (await started.json()) as { runId: string };
    const answered: Array<Promise<[number, unknown]>> = [];
    const reading = await readSse(await c.call(1, "GET", `/v1/runs/${runId}/events`), {
      stopWhen: (r) => {
        const last = r.messages.at(-1);
        if (last?.event === "ui_request") {
          const request = JSON.parse(last.data ?? "{}") as { requestId: string; kind?: string };
          const body =
            request.kind === "confirm"
              ? { kind: "confirm", value: true }
              : { kind: "input", value: "x".repeat(9_000) };
          // Answered through B (instance 1), while A (instance 0) executes the run.
          answered.push(
            c
              .call(1, "POST", `/v1/runs/${runId}/ui/${request.requestId}`, body)
              .then(async (res) => [res.status, await res.json()] as [number, unknown]),
          );
        }
        return last?.event === "end";
      },
    });
    expect((await Promise.all(answered)).map(([status]) => status)).toEqual([200, 200]);
    const notice = reading.messages.find((m) => (m.data ?? "").includes("sure="));
    expect(notice?.data).toContain(`sure=true name=${"x".repeat(9_000)}`);
    expect(JSON.parse(reading.messages.at(-1)?.data ?? "{}")).toMatchObject({
      status: "completed",
    });
  }, 60_000);

  it("a wrong or repeated answer sent to B gets A's 400 or 409, and an unknown request 404", async () => {
    const sessionId = await c.newSession(0);
    const started = await c.call(0, "POST", `/v1/sessions/${sessionId}/commands/ask`, {
      agent: "asker",
    });
    const { runId } = (await started.json()) as { runId: string };
    const stream = await c.call(1, "GET", `/v1/runs/${runId}/events`);
    const first = await readSse(stream, {
      stopWhen: (r) => r.messages.some((m) => m.event === "ui_request"),
    });
    const request = JSON.parse(
      first.messages.find((m) => m.event === "ui_request")?.data ?? "{}",
    ) as { requestId: string };
    const send = (body: unknown, requestId = request.requestId) =>
      c.call(1, "POST", `/v1/runs/${runId}/ui/${requestId}`, body);
    const wrong = await send({ kind: "input", value: "not a confirm" });
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as { error: { code: string } }).error.code).toBe(
      "ui_answer_mismatch",
    );
    expect((await send({ kind: "confirm", value: false })).status).toBe(200);
    const again = await send({ kind: "confirm", value: true });
    expect(again.status).toBe(409);
    const unknown = await send({ kind: "confirm", value: true }, "ui_000000000000000000000000");
    expect(unknown.status).toBe(404);
    await c.call(1, "POST", `/v1/runs/${runId}/abort`);
    expect((await c.waitForRun(1, runId)).status).not.toBe("running");
  }, 60_000);
});
