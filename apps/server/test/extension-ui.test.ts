import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  dataOf,
  type ExtensionServer,
  follow,
  json,
  newSession,
  startExtensionServer,
} from "./helpers/extension-server.js";
import { idsOf, type SseMessage } from "./helpers/sse-client.js";

let s: ExtensionServer;
beforeAll(async () => {
  // A client has a minute to answer here (the timeout test starts a server of its own).
  s = await startExtensionServer("extensions:\n  uiTimeoutMs: 60000");
}, 30_000);
afterAll(() => s.close());

async function startGatedRun(command: string): Promise<{ sessionId: string; runId: string }> {
  const sessionId = await newSession(s);
  const res = await s.call("POST", `/v1/sessions/${sessionId}/runs`, {
    agent: "gated",
    prompt: `please run ${command}`,
  });
  expect(res.status).toBe(202);
  return { sessionId, runId: (await json(res)).runId as string };
}

function answer(runId: string, requestId: string, body: unknown, key?: string) {
  return s.call("POST", `/v1/runs/${runId}/ui/${requestId}`, body, key);
}

/** Follows the run and answers its first UI request with `reply` (or not at all). */
async function runAnswering(
  command: string,
  reply: ((runId: string, requestId: string) => Promise<void>) | undefined,
) {
  const { runId, sessionId } = await startGatedRun(command);
  const reading = await follow(s, runId, async (message: SseMessage) => {
    if (message.event !== "ui_request" || !reply) return;
    const request = JSON.parse(message.data ?? "{}") as { requestId: string };
    await reply(runId, request.requestId);
  });
  const run = await json(await s.call("GET", `/v1/runs/${runId}`));
  return { runId, sessionId, reading, run };
}

function toolResults(reading: Awaited<ReturnType<typeof follow>>) {
  return dataOf(reading, "tool_result");
}

/** What the model said: the fake model repeats the tool's result after a tool call. */
function answerText(reading: Awaited<ReturnType<typeof follow>>): string {
  return dataOf(reading, "text_delta")
    .map((event) => String(event.delta ?? ""))
    .join("");
}

describe("UI requests over SSE (permission-gate example, real sockets)", {
  timeout: 30_000,
}, () => {
  it("asks with a ui_request event, and an Allow answer lets the tool run", async () => {
    const started = Date.now();
    const { reading, run, runId } = await runAnswering("rm -rf build", async (id, requestId) => {
      const res = await answer(id, requestId, { kind: "select", value: "Allow once" });
      expect(res.status).toBe(200);
      expect(await json(res)).toEqual({ requestId, outcome: "answered" });
    });
    const [request] = dataOf(reading, "ui_request");
    expect(request).toMatchObject({
      type: "ui_request",
      runId,
      kind: "select",
      extensionName: "permission-gate.ts",
      title: "Allow this command?\n  rm -rf build",
      options: ["Allow once", "Allow for this session", "Deny"],
    });
    expect(request?.requestId).toMatch(/^ui_[0-9a-f]{24}$/);
    // The expiry is the server's cap (60 s), shorter than the gate's own 120 s.
    const expiresAt = Date.parse(request?.expiresAt as string);
    expect(expiresAt).toBeGreaterThan(started + 50_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 60_000);
    expect(dataOf(reading, "ui_resolved")).toEqual([
      expect.objectContaining({ requestId: request?.requestId, outcome: "answered" }),
    ]);
    const [result] = toolResults(reading);
    expect(answerText(reading)).toBe("tool said: ran: rm -rf build");
    // The tool's progress is an event too, before its result.
    expect(dataOf(reading, "tool_update")).toEqual([
      expect.objectContaining({
        toolName: "bash",
        extensionName: "fake-shell.ts",
        content: [{ type: "text", text: "starting rm -rf build" }],
        details: { step: 1 },
      }),
    ]);
    const order = reading.messages.map((m) => m.event);
    expect(order.indexOf("tool_update")).toBeLessThan(order.indexOf("tool_result"));
    expect(result?.isError).toBe(false);
    expect(run.status).toBe("completed");
    // The server's events share the run's sequence: ids stay 1, 2, 3, …
    const ids = idsOf(reading);
    expect(ids).toEqual(ids.map((_, i) => i + 1));
  });

  it("a Deny answer blocks the command; the model is told the user denied it", async () => {
    const { reading, run } = await runAnswering("sudo reboot", async (id, requestId) => {
      expect((await answer(id, requestId, { kind: "select", value: "Deny" })).status).toBe(200);
    });
    const [result] = toolResults(reading);
    expect(result?.isError).toBe(true);
    expect(answerText(reading)).toContain("the user denied it");
    expect(answerText(reading)).not.toContain("ran: sudo");
    expect(run.status).toBe("completed");
  });

  it("a dismissed request is no answer: denied", async () => {
    const { reading } = await runAnswering("git push origin main", async (id, requestId) => {
      const res = await answer(id, requestId, { kind: "dismiss" });
      expect(await json(res)).toEqual({ requestId, outcome: "dismissed" });
    });
    expect(dataOf(reading, "ui_resolved")[0]?.outcome).toBe("dismissed");
    expect(toolResults(reading)[0]?.isError).toBe(true);
    expect(answerText(reading)).toContain("the user did not answer");
  });

  it("with no answer the request times out to no answer, the command is denied, and a late answer gets 409", async () => {
    const shared = s;
    // Unanswered requests time out after 1 s on this server.
    s = await startExtensionServer("extensions:\n  uiTimeoutMs: 1000");
    try {
      await timesOut();
    } finally {
      await s.close();
      s = shared;
    }
  });

  async function timesOut() {
    const { reading, runId } = await runAnswering("rm notes.txt", undefined);
    const [request] = dataOf(reading, "ui_request");
    expect(dataOf(reading, "ui_resolved")).toEqual([
      expect.objectContaining({ requestId: request?.requestId, outcome: "timeout" }),
    ]);
    const [result] = toolResults(reading);
    expect(result?.isError).toBe(true);
    // ctx.hasUI is true over the server: the gate says nobody answered, not "nobody to ask".
    expect(answerText(reading)).toContain("the user did not answer");
    const late = await answer(runId, request?.requestId as string, {
      kind: "select",
      value: "Allow once",
    });
    expect(late.status).toBe(409);
    expect(((await json(late)).error as { code: string }).code).toBe("ui_request_closed");
  }

  it("refuses hostile answers without settling the request, then takes a good one", async () => {
    const outcomes: Record<string, [number, string | undefined]> = {};
    const record = async (name: string, res: Response) => {
      const body = await json(res);
      outcomes[name] = [res.status, (body.error as { code?: string } | undefined)?.code];
    };
    const { reading, run } = await runAnswering("rm -r dist", async (id, requestId) => {
      await record("wrong kind", await answer(id, requestId, { kind: "confirm", value: true }));
      await record(
        "not an option",
        await answer(id, requestId, { kind: "select", value: "Allow forever" }),
      );
      await record(
        "oversized",
        await answer(id, requestId, { kind: "select", value: "A".repeat(20_000) }),
      );
      await record("no value", await answer(id, requestId, { kind: "select" }));
      await record(
        "extra key",
        await answer(id, requestId, { kind: "select", value: "Deny", admin: true }),
      );
      await record("number value", await answer(id, requestId, { kind: "input", value: 7 }));
      await record(
        "other tenant",
        await answer(id, requestId, { kind: "select", value: "Allow once" }, s.otherKey),
      );
      await record(
        "unknown request",
        await answer(id, "ui_000000000000000000000000", { kind: "select", value: "Deny" }),
      );
      await record(
        "unknown run",
        await answer("run_000000000000000000000000", requestId, { kind: "dismiss" }),
      );
      await record("good", await answer(id, requestId, { kind: "select", value: "Allow once" }));
      await record("twice", await answer(id, requestId, { kind: "select", value: "Deny" }));
    });
    expect(outcomes).toEqual({
      "wrong kind": [400, "ui_answer_mismatch"],
      "not an option": [400, "invalid_ui_answer"],
      oversized: [400, "invalid_request"],
      "no value": [400, "invalid_request"],
      "extra key": [400, "invalid_request"],
      "number value": [400, "invalid_request"],
      "other tenant": [404, "run_not_found"],
      "unknown request": [404, "ui_request_not_found"],
      "unknown run": [404, "run_not_found"],
      good: [200, undefined],
      twice: [409, "ui_request_closed"],
    });
    // The first good answer is the one the gate got.
    expect(answerText(reading)).toBe("tool said: ran: rm -r dist");
    expect(run.status).toBe("completed");
  });

  it("stopping or aborting a run cancels its open request (no answer, denied)", async () => {
    for (const how of ["stop", "abort"] as const) {
      const { runId } = await startGatedRun("rm -rf /tmp/x");
      const reading = await follow(s, runId, async (message) => {
        if (message.event === "ui_request") {
          expect((await s.call("POST", `/v1/runs/${runId}/${how}`)).status).toBe(202);
        }
      });
      const resolved = dataOf(reading, "ui_resolved");
      expect(resolved.map((event) => event.outcome)).toEqual(["cancelled"]);
      expect(answerText(reading)).not.toContain("ran: rm");
      const run = await json(await s.call("GET", `/v1/runs/${runId}`));
      expect(["completed", "aborted"]).toContain(run.status);
    }
  });

  it("confirm and input questions, and notifications, from a command", async () => {
    const sessionId = await newSession(s);
    const res = await s.call("POST", `/v1/sessions/${sessionId}/commands/ask`, {
      agent: "planner",
    });
    expect(res.status).toBe(202);
    const { runId } = (await json(res)) as { runId: string };
    const reading = await follow(s, runId, async (message) => {
      if (message.event !== "ui_request") return;
      const request = JSON.parse(message.data ?? "{}") as { requestId: string; kind: string };
      const reply =
        request.kind === "confirm"
          ? { kind: "confirm", value: false }
          : { kind: "input", value: "Ada <script>" };
      expect((await answer(runId, request.requestId, reply)).status).toBe(200);
    });
    const requests = dataOf(reading, "ui_request");
    expect(requests.map((r) => [r.kind, r.title, r.message ?? r.placeholder])).toEqual([
      ["confirm", "Sure?", "This asks twice"],
      ["input", "Your name", "a name"],
    ]);
    expect(dataOf(reading, "ui_notify")).toEqual([
      expect.objectContaining({
        extensionName: "asks-everything.ts",
        message: "sure=false name=Ada <script> hasUI=true",
        level: "info",
      }),
    ]);
    expect(dataOf(reading, "command_end")).toEqual([
      expect.objectContaining({ name: "ask", status: "done" }),
    ]);
  });

  it("a custom component cannot be shown over HTTP: no answer at once, no request event", async () => {
    const sessionId = await newSession(s);
    const res = await s.call("POST", `/v1/sessions/${sessionId}/commands/custom`, {
      agent: "planner",
    });
    const { runId } = (await json(res)) as { runId: string };
    const reading = await follow(s, runId);
    expect(dataOf(reading, "ui_request")).toEqual([]);
    expect(dataOf(reading, "ui_notify").map((n) => n.message)).toEqual(["custom=undefined"]);
  });
});
